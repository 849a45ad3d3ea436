//! Thread-local variables: their addresses in the TLS model LLVM picks.
//!
//! In: a use of a `thread_local` global (directly, as clang-14 writes it,
//! or through `llvm.threadlocal.address`, as clang-19 does). Out: the
//! variable's address in a virtual register, computed by one of the
//! x86-64 TLS sequences ([`TlsAccess`]).
//!
//! The model follows `TargetMachine::getTLSModel`: an object that may be
//! linked into a shared library (the module has a "PIC Level" flag and no
//! "PIE Level") uses general dynamic, or local dynamic for a variable that
//! cannot be preempted; an executable (PIE or not) uses initial exec, or
//! local exec for a variable of its own. A variable cannot be preempted
//! when it is `dso_local`, internal or private, or hidden or protected. A
//! `thread_local(localdynamic|initialexec|localexec)` mode applies when it
//! is more specific than that default (general dynamic < local dynamic <
//! initial exec < local exec), as in LLVM.

use super::*;
use crate::codegen::mir::TlsAccess;
use crate::ir::{Global, MdOperand};

/// The TLS models, from the most general to the most specific.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum TlsModel {
    GeneralDynamic,
    LocalDynamic,
    InitialExec,
    LocalExec,
}

impl Selector<'_> {
    /// Selects `llvm.threadlocal.address(@g)` (the address of `@g` in this
    /// thread), returning `false` for any other instruction.
    pub(super) fn lower_threadlocal_address(&mut self, id: InstId) -> Result<bool, Diagnostic> {
        let InstKind::Call { callee, args, .. } = &self.f.inst(id).kind else {
            return Ok(false);
        };
        let Some(callee) = self.module.direct_callee(callee) else {
            return Ok(false);
        };
        if !self
            .module
            .function(callee)
            .name
            .starts_with("llvm.threadlocal.address")
        {
            return Ok(false);
        }
        let [arg] = args.as_slice() else {
            return Err(self.error("llvm.threadlocal.address takes one argument".into()));
        };
        let dst = self.dst(id)?;
        let src = self.reg(&arg.value)?;
        self.emit(K::Copy { dst, src });
        Ok(true)
    }

    /// The address of thread-local `global` in this thread, in a register.
    pub(super) fn thread_local_address(&mut self, global: &Global) -> Result<Reg, Diagnostic> {
        let model = self.tls_model(global)?;
        let symbol = global.name.clone();
        let dst = self.vreg(Width::W64);
        let rax = Reg::from(Gpr::Rax);
        match model {
            TlsModel::GeneralDynamic => {
                self.emit(K::ThreadLocal {
                    access: TlsAccess::GeneralDynamic,
                    symbol,
                    dst: None,
                    base: None,
                });
                self.emit(K::Copy { dst, src: rax });
            }
            TlsModel::LocalDynamic => {
                self.emit(K::ThreadLocal {
                    access: TlsAccess::LocalDynamicBlock,
                    symbol: symbol.clone(),
                    dst: None,
                    base: None,
                });
                let block = self.vreg(Width::W64);
                self.emit(K::Copy {
                    dst: block,
                    src: rax,
                });
                self.emit(K::ThreadLocal {
                    access: TlsAccess::LocalDynamicOffset,
                    symbol,
                    dst: Some(dst),
                    base: Some(block),
                });
            }
            TlsModel::InitialExec | TlsModel::LocalExec => {
                let access = if model == TlsModel::InitialExec {
                    TlsAccess::InitialExec
                } else {
                    TlsAccess::LocalExec
                };
                self.emit(K::ThreadLocal {
                    access,
                    symbol,
                    dst: Some(dst),
                    base: None,
                });
            }
        }
        Ok(dst)
    }

    /// The model of `global` (see the module documentation).
    fn tls_model(&self, global: &Global) -> Result<TlsModel, Diagnostic> {
        let flag = |key| {
            matches!(
                self.module.module_flag(key),
                Some(MdOperand::Value(Constant::Int { value, .. })) if *value != 0
            )
        };
        let shared_library = flag("PIC Level") && !flag("PIE Level");
        let local = global.dso_local
            || global.linkage.is_local()
            || matches!(
                global.attrs.visibility.as_deref(),
                Some("hidden" | "protected")
            );
        let default = match (shared_library, local) {
            (true, true) => TlsModel::LocalDynamic,
            (true, false) => TlsModel::GeneralDynamic,
            (false, true) => TlsModel::LocalExec,
            (false, false) => TlsModel::InitialExec,
        };
        let written = global
            .attrs
            .thread_local
            .as_deref()
            .unwrap_or("thread_local");
        let selected = match written {
            "thread_local" => TlsModel::GeneralDynamic,
            "thread_local(localdynamic)" => TlsModel::LocalDynamic,
            "thread_local(initialexec)" => TlsModel::InitialExec,
            "thread_local(localexec)" => TlsModel::LocalExec,
            other => {
                return Err(self.error(format!(
                    "unsupported thread-local mode '{other}' of @{}",
                    global.name
                )))
            }
        };
        Ok(default.max(selected))
    }
}
