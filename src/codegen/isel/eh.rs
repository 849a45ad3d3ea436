//! Itanium C++ exception handling, as llc-19 selects it for x86-64 ELF.
//!
//! In: a function's `invoke`s, `landingpad`s, `resume`s and
//! `llvm.eh.typeid.for` calls. Out: MIR in which
//! - an `invoke` is a `Call` carrying its landing pad (`unwind`): the call
//!   ends its block, the landing pad's phis get their values before it,
//!   and the result copies and the normal edge's phi copies go into a
//!   block of their own after it (the invoke's continuation), so a value
//!   live across the call reaches both successors and what the call
//!   clobbers is dead in the landing pad;
//! - a `landingpad` copies the exception pointer from rax and the selector
//!   from rdx;
//! - a `resume` calls `_Unwind_Resume` with the exception pointer;
//! - `llvm.eh.typeid.for(@ti)` is the constant type id of `@ti`;
//!
//! and the function's [`EhTables`]: its type infos, exception
//! specifications and each landing pad's type ids, numbered as LLVM's
//! `MachineFunction` numbers them (blocks in reverse post-order; a landing
//! pad's `cleanup` first, then its clauses last to first; a pad with only
//! `cleanup` has no type ids), from which `codegen::exception_table`
//! builds the LSDA.
//!
//! Debug-info rule: the continuation block has the invoke's location; the
//! landing pad's copies have the `landingpad`'s. Debug values at a landing
//! pad's entry are those live right after the call (the block ends there).

use super::*;

/// The exception-handling tables of one function, as LLVM numbers them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EhTables {
    /// The personality function's symbol.
    pub personality: String,
    /// Type infos by type id (id `n` at index `n - 1`); `None` is
    /// `ptr null`, the catch-all.
    pub type_infos: Vec<Option<String>>,
    /// The exception specifications: each the type ids it lets through,
    /// ended by 0 (a filter's id `-(1 + i)` names the list at `i`).
    pub filter_ids: Vec<u32>,
    /// Each landing pad's block and its type ids (positive: a catch,
    /// negative: a filter, 0: cleanup), in block order.
    pub landing_pads: Vec<(MBlock, Vec<i32>)>,
}

impl EhTables {
    /// The type id of a type info (1-based), made on first use.
    fn type_id_for(&mut self, type_info: Option<String>) -> i32 {
        let index = match self.type_infos.iter().position(|t| *t == type_info) {
            Some(i) => i,
            None => {
                self.type_infos.push(type_info);
                self.type_infos.len() - 1
            }
        };
        index as i32 + 1
    }

    /// The filter id of an exception specification: an existing list
    /// whose tail equals it, else a new list.
    fn filter_id_for(&mut self, ids: &[u32]) -> i32 {
        let ends = self
            .filter_ids
            .iter()
            .enumerate()
            .filter(|(_, &id)| id == 0)
            .map(|(i, _)| i);
        for end in ends {
            if end >= ids.len() && self.filter_ids[end - ids.len()..end] == *ids {
                return -(1 + (end - ids.len()) as i32);
            }
        }
        let id = -(1 + self.filter_ids.len() as i32);
        self.filter_ids.extend_from_slice(ids);
        self.filter_ids.push(0);
        id
    }
}

/// The symbol a personality written as `ptr @name` names.
fn personality_symbol(written: &str) -> String {
    let name = written.rsplit('@').next().unwrap_or(written).trim();
    name.trim_matches('"').to_string()
}

impl<'a> Selector<'a> {
    /// The symbol a type-info constant names (`None` for `null`).
    fn type_info_symbol(&self, constant: &Constant) -> Result<Option<String>, Diagnostic> {
        match constant {
            Constant::Null => Ok(None),
            Constant::Global(global) => Ok(Some(self.module.symbol_name(*global).to_string())),
            _ => Err(self.error("unsupported type info in a landingpad clause".into())),
        }
    }

    /// Numbers the function's type infos and filters and records each
    /// landing pad's type ids, visiting blocks in reverse post-order as
    /// llc's selection does (its `llvm.eh.typeid.for` calls number types
    /// as they come too). `None` when the function has no landing pad.
    pub(super) fn number_eh_types(&self) -> Result<Option<EhTables>, Diagnostic> {
        let f = self.f;
        let Some(personality) = &f.attrs.personality else {
            return Ok(None);
        };
        let mut tables = EhTables {
            personality: personality_symbol(personality),
            ..EhTables::default()
        };
        let mut pads = Vec::new();
        for block in ir::cfg::reverse_post_order(f) {
            for &id in &f.block(block).insts {
                match &f.inst(id).kind {
                    InstKind::LandingPad { cleanup, clauses } => {
                        let mut type_ids = Vec::new();
                        if *cleanup {
                            type_ids.push(0);
                        }
                        for clause in clauses.iter().rev() {
                            let id = match clause {
                                ir::LandingPadClause::Catch(c) => {
                                    let symbol = self.type_info_symbol(c)?;
                                    tables.type_id_for(symbol)
                                }
                                ir::LandingPadClause::Filter(c) => {
                                    let elems = match c {
                                        Constant::Array { elems, .. } => elems.clone(),
                                        _ => Vec::new(),
                                    };
                                    let mut ids = Vec::with_capacity(elems.len());
                                    for elem in &elems {
                                        let symbol = self.type_info_symbol(elem)?;
                                        ids.push(tables.type_id_for(symbol) as u32);
                                    }
                                    tables.filter_id_for(&ids)
                                }
                            };
                            type_ids.push(id);
                        }
                        if type_ids == [0] {
                            type_ids.clear();
                        }
                        pads.push((block, type_ids));
                    }
                    InstKind::Call { callee, args, .. } if self.is_typeid_for(callee) => {
                        if let Some(Value::Const(c)) = args.first().map(|a| &a.value) {
                            let symbol = self.type_info_symbol(c)?;
                            tables.type_id_for(symbol);
                        }
                    }
                    _ => {}
                }
            }
        }
        if pads.is_empty() {
            return Ok(None);
        }
        pads.sort_by_key(|(block, _)| block.0);
        tables.landing_pads = pads
            .into_iter()
            .map(|(block, ids)| (MBlock(block.0), ids))
            .collect();
        Ok(Some(tables))
    }

    /// Whether `callee` is `llvm.eh.typeid.for`.
    fn is_typeid_for(&self, callee: &Value) -> bool {
        self.module.direct_callee(callee).is_some_and(|f| {
            self.module
                .function(f)
                .name
                .starts_with("llvm.eh.typeid.for")
        })
    }

    /// `llvm.eh.typeid.for(@ti)`: the type id numbered for `@ti`.
    pub(super) fn lower_typeid_for(
        &mut self,
        id: InstId,
        args: &[ir::CallArg],
    ) -> Result<bool, Diagnostic> {
        let Some(tables) = &self.eh else {
            return Ok(false);
        };
        let Some(Value::Const(c)) = args.first().map(|a| &a.value) else {
            return Ok(false);
        };
        let symbol = self.type_info_symbol(c)?;
        let Some(index) = tables.type_infos.iter().position(|t| *t == symbol) else {
            return Ok(false);
        };
        let dst = self.dst(id)?;
        self.emit(K::MovImm {
            dst,
            imm: index as i64 + 1,
            width: Width::W32,
        });
        Ok(true)
    }

    /// The landing pad of call `id` if it is an `invoke`, giving its phis
    /// their values first (they must hold them when the call unwinds).
    pub(super) fn invoke_landing_pad(&mut self, id: InstId) -> Result<Option<MBlock>, Diagnostic> {
        let InstKind::Invoke { unwind, .. } = &self.f.inst(id).kind else {
            return Ok(None);
        };
        let unwind = *unwind;
        if self.has_phis(unwind) {
            self.phi_copies(self.inst_block[id.0 as usize], unwind)?;
        }
        Ok(Some(MBlock(unwind.0)))
    }

    /// After an invoke's call: its continuation block takes the results
    /// and the normal edge's phi copies, then jumps to the normal block.
    pub(super) fn continue_after_invoke(
        &mut self,
        id: InstId,
        results: Vec<Reg>,
        rets: Vec<PhysReg>,
    ) -> Result<(), Diagnostic> {
        let InstKind::Invoke { normal, .. } = &self.f.inst(id).kind else {
            return Err(self.error("internal: not an invoke".into()));
        };
        let normal = *normal;
        let pred = self.inst_block[id.0 as usize];
        let continuation = self.mir.new_block();
        self.edge_order.push((pred, continuation));
        self.emit(K::Jmp {
            target: continuation,
        });
        self.current = continuation;
        for (dst, src) in results.into_iter().zip(rets) {
            self.emit(K::Copy {
                dst,
                src: Reg::from(src),
            });
        }
        // An x86_fp80 result is still on the x87 stack: this block is reached
        // only from the call's return.
        if self.x87_values(&self.f.inst(id).ty).is_some() {
            self.fp80_call_result(id)?;
        }
        if self.has_phis(normal) {
            self.phi_copies(pred, normal)?;
        }
        self.emit(K::Jmp {
            target: MBlock(normal.0),
        });
        Ok(())
    }

    /// `landingpad`: the exception pointer arrives in rax, the selector in
    /// rdx.
    pub(super) fn lower_landing_pad(&mut self, id: InstId) -> Result<(), Diagnostic> {
        let leaves = self.result_leaves(id)?;
        for (dst, src) in leaves.into_iter().zip([Gpr::Rax, Gpr::Rdx]) {
            self.emit(K::Copy {
                dst,
                src: Reg::from(src),
            });
        }
        Ok(())
    }

    /// `resume`: `_Unwind_Resume(exception pointer)`, which never returns.
    pub(super) fn lower_resume(&mut self, value: &Value) -> Result<(), Diagnostic> {
        let exception = self.leaves(value)?[0];
        self.emit(K::Copy {
            dst: Reg::from(Gpr::Rdi),
            src: exception,
        });
        self.emit(K::Call {
            target: CallTarget::Symbol("_Unwind_Resume".into()),
            args: vec![Gpr::Rdi.into()],
            rets: Vec::new(),
            clobbers: CALLER_SAVED,
            unwind: None,
        });
        self.emit(K::Ud2);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_reuse_a_list_whose_tail_they_equal() {
        let mut tables = EhTables::default();
        assert_eq!(tables.filter_id_for(&[1, 2]), -1);
        assert_eq!(tables.filter_id_for(&[2]), -2);
        assert_eq!(tables.filter_id_for(&[]), -3);
        assert_eq!(tables.filter_id_for(&[3]), -4);
        assert_eq!(tables.filter_ids, [1, 2, 0, 3, 0]);
    }

    #[test]
    fn type_ids_count_from_one_in_order_of_first_use() {
        let mut tables = EhTables::default();
        assert_eq!(tables.type_id_for(None), 1);
        assert_eq!(tables.type_id_for(Some("_ZTIi".into())), 2);
        assert_eq!(tables.type_id_for(None), 1);
    }
}
