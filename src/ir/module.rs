//! Modules, functions, blocks and globals: the containers of the IR.
//!
//! In: nothing (plain data). Out: [`Module`], [`Function`], [`Block`],
//! [`Global`]. Promise: a function owns an instruction arena
//! ([`Function::insts`], indexed by [`InstId`]) and an ordered list of
//! blocks, each an ordered list of instruction ids; an instruction id
//! appears in at most one block. Blocks are listed in layout order and the
//! first is the entry.

use std::borrow::Cow;

use super::debug::{DebugInfo, MdId, MdNode, MdOperand, MdRef};
use super::inst::{Inst, ParamAttrs};
use super::types::{FunctionType, StructDef, Type};
use super::value::{BlockId, Constant, FuncId, GlobalId, GlobalRef, InstId, Value};
use crate::error::Pos;

/// Symbol linkage, one variant per .ll keyword.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Linkage {
    /// No keyword (or `external`): a global symbol.
    #[default]
    External,
    /// `internal`: a local symbol.
    Internal,
    /// `private`: a local symbol, not even named in the symbol table.
    Private,
    /// `weak`.
    Weak,
    /// `weak_odr`.
    WeakOdr,
    /// `linkonce`.
    LinkOnce,
    /// `linkonce_odr`.
    LinkOnceOdr,
    /// `common`.
    Common,
    /// `extern_weak`.
    ExternWeak,
    /// `available_externally`.
    AvailableExternally,
    /// `appending` (`@llvm.used`, `@llvm.global_ctors`...).
    Appending,
}

impl Linkage {
    /// Whether the symbol is local to the object (internal or private).
    pub fn is_local(self) -> bool {
        matches!(self, Linkage::Internal | Linkage::Private)
    }

    /// Whether the symbol binds weakly.
    pub fn is_weak(self) -> bool {
        matches!(
            self,
            Linkage::Weak
                | Linkage::WeakOdr
                | Linkage::LinkOnce
                | Linkage::LinkOnceOdr
                | Linkage::Common
                | Linkage::ExternWeak
        )
    }

    /// The keyword as written in .ll text (empty for `External`).
    pub fn keyword(self) -> &'static str {
        match self {
            Linkage::External => "",
            Linkage::Internal => "internal",
            Linkage::Private => "private",
            Linkage::Weak => "weak",
            Linkage::WeakOdr => "weak_odr",
            Linkage::LinkOnce => "linkonce",
            Linkage::LinkOnceOdr => "linkonce_odr",
            Linkage::Common => "common",
            Linkage::ExternWeak => "extern_weak",
            Linkage::AvailableExternally => "available_externally",
            Linkage::Appending => "appending",
        }
    }

    /// The linkage for a .ll keyword (`external` included).
    pub fn from_keyword(word: &str) -> Option<Linkage> {
        Some(match word {
            "external" => Linkage::External,
            "internal" => Linkage::Internal,
            "private" => Linkage::Private,
            "weak" => Linkage::Weak,
            "weak_odr" => Linkage::WeakOdr,
            "linkonce" => Linkage::LinkOnce,
            "linkonce_odr" => Linkage::LinkOnceOdr,
            "common" => Linkage::Common,
            "extern_weak" => Linkage::ExternWeak,
            "available_externally" => Linkage::AvailableExternally,
            "appending" => Linkage::Appending,
            _ => return None,
        })
    }
}

/// `unnamed_addr` / `local_unnamed_addr`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum UnnamedAddr {
    /// Neither keyword.
    #[default]
    None,
    /// `local_unnamed_addr`.
    Local,
    /// `unnamed_addr`.
    Global,
}

/// What a global or function carries besides its linkage, name and type:
/// kept so that the printer writes it back and the code generation gate
/// (`codegen::unsupported`) can refuse what code generation does not honour.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SymbolAttrs {
    /// `hidden` or `protected` (`default` is the default and not kept).
    pub visibility: Option<String>,
    /// `dllimport` or `dllexport`.
    pub dll_storage: Option<String>,
    /// `thread_local` or `thread_local(MODE)`, as written.
    pub thread_local: Option<String>,
    /// `externally_initialized`.
    pub externally_initialized: bool,
    /// `addrspace(N)`.
    pub addrspace: Option<u32>,
    /// `comdat` (`Some(None)`) or `comdat($name)` (`Some(Some(name))`).
    pub comdat: Option<Option<String>>,
    /// `partition "name"`.
    pub partition: Option<String>,
    /// Function attribute group references (`#N`), in order.
    pub attribute_groups: Vec<u32>,
    /// Function attributes written inline (`nounwind`, `"key"="value"`), as written.
    pub inline_attrs: Vec<String>,
    /// `gc "name"`.
    pub gc: Option<String>,
    /// The typed constant after `prefix`, as written.
    pub prefix: Option<String>,
    /// The typed constant after `prologue`, as written.
    pub prologue: Option<String>,
    /// The typed constant after `personality`, as written.
    pub personality: Option<String>,
    /// Metadata attachments other than `!dbg` (`!type`, `!prof`...), by kind
    /// name without `!`, in order.
    pub metadata: Vec<(String, MdRef)>,
}

/// `attributes #N = { ... }`: a function attribute group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttributeGroup {
    /// The group's number `N`.
    pub number: u32,
    /// Its attributes as written (`nounwind`, `"frame-pointer"="all"`, `memory(none)`).
    pub attrs: Vec<String>,
}

/// `$name = comdat KIND`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comdat {
    /// The name without `$`.
    pub name: String,
    /// The selection kind (`any`, `exactmatch`, `largest`, `nodeduplicate`, `samesize`).
    pub kind: String,
}

/// `module asm "..."`: one line of module-level inline assembly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleAsm {
    /// The assembly text.
    pub text: String,
    /// Where it was read from.
    pub pos: Pos,
}

/// A global variable: `@name = [linkage] [unnamed_addr] global|constant ty init, align N`.
#[derive(Clone, Debug, PartialEq)]
pub struct Global {
    /// The name without `@`.
    pub name: String,
    /// Linkage.
    pub linkage: Linkage,
    /// `dso_local`.
    pub dso_local: bool,
    /// `unnamed_addr` marker.
    pub unnamed_addr: UnnamedAddr,
    /// `constant` rather than `global`.
    pub constant: bool,
    /// The value type.
    pub ty: Type,
    /// The initializer; `None` for an external declaration.
    pub initializer: Option<Constant>,
    /// `align N`.
    pub align: Option<u32>,
    /// `section "name"`.
    pub section: Option<String>,
    /// `!dbg` attachments (DIGlobalVariableExpressions).
    pub dbg: Vec<MdId>,
    /// Visibility, thread-local mode, comdat and the rest.
    pub attrs: SymbolAttrs,
    /// Where the global was read from.
    pub pos: Pos,
    /// For an alias (`@a = alias T, ptr ALIASEE`), the aliasee: a global
    /// or a constant expression over one (`getelementptr`); `ty` is then
    /// the alias's value type and `initializer` is `None`.
    pub aliasee: Option<Constant>,
}

impl Global {
    /// Whether this is an alias of another global's address.
    pub fn is_alias(&self) -> bool {
        self.aliasee.is_some()
    }
}

/// A function parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Its type.
    pub ty: Type,
    /// ABI attributes (`signext`, `zeroext`, `noundef`...).
    pub attrs: ParamAttrs,
    /// Its name without `%`, or `None` when numbered.
    pub name: Option<String>,
}

/// A basic block: a label and its instructions in order (the last one is
/// the terminator).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    /// The label without `%`, or `None` for a numbered block.
    pub name: Option<String>,
    /// The instructions, in order.
    pub insts: Vec<InstId>,
}

/// A function definition or declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The name without `@`.
    pub name: String,
    /// Linkage (internal/private become local symbols).
    pub linkage: Linkage,
    /// `dso_local`.
    pub dso_local: bool,
    /// `unnamed_addr` marker.
    pub unnamed_addr: UnnamedAddr,
    /// The return type.
    pub ret_ty: Type,
    /// Attributes of the return value.
    pub ret_attrs: ParamAttrs,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// Whether it takes `...`.
    pub varargs: bool,
    /// Blocks in layout order; empty for a declaration.
    pub blocks: Vec<Block>,
    /// The instruction arena.
    pub insts: Vec<Inst>,
    /// The `!dbg` DISubprogram.
    pub subprogram: Option<MdId>,
    /// `section "name"`.
    pub section: Option<String>,
    /// `align N`.
    pub align: Option<u32>,
    /// Visibility, attributes, comdat, gc, prefix/prologue/personality and the rest.
    pub attrs: SymbolAttrs,
    /// Where the function was read from.
    pub pos: Pos,
}

impl Function {
    /// Whether this is a declaration (no body).
    pub fn is_declaration(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The function's signature.
    pub fn fn_type(&self) -> FunctionType {
        FunctionType {
            ret: self.ret_ty.clone(),
            params: self.params.iter().map(|p| p.ty.clone()).collect(),
            varargs: self.varargs,
        }
    }

    /// The instruction with this id.
    pub fn inst(&self, id: InstId) -> &Inst {
        &self.insts[id.0 as usize]
    }

    /// The instruction with this id, for changing it.
    pub fn inst_mut(&mut self, id: InstId) -> &mut Inst {
        &mut self.insts[id.0 as usize]
    }

    /// The block with this id.
    pub fn block(&self, id: BlockId) -> &Block {
        &self.blocks[id.0 as usize]
    }

    /// Adds an instruction to the arena (not to any block) and returns its id.
    pub fn add_inst(&mut self, inst: Inst) -> InstId {
        let id = InstId(self.insts.len() as u32);
        self.insts.push(inst);
        id
    }

    /// The terminator of a block, if it has instructions.
    pub fn terminator(&self, block: BlockId) -> Option<&Inst> {
        self.block(block).insts.last().map(|&id| self.inst(id))
    }

    /// Replaces every use of `old` by `new`, in instruction operands and in
    /// debug record locations alike, and returns how many uses changed.
    pub fn replace_all_uses(&mut self, old: &Value, new: &Value) -> usize {
        let mut changed = 0;
        let mut replace = |value: &mut Value| {
            if value == old {
                *value = new.clone();
                changed += 1;
            }
        };
        for inst in &mut self.insts {
            inst.operands_mut().into_iter().for_each(&mut replace);
            for record in &mut inst.records {
                record.values_mut().for_each(&mut replace);
            }
        }
        changed
    }

    /// The type of a value used in this function.
    pub fn value_type(&self, value: &Value) -> Type {
        self.value_type_ref(value).into_owned()
    }

    /// [`Function::value_type`], borrowed from the argument or instruction
    /// that has it (a constant's is made), for a caller that only looks.
    pub fn value_type_ref(&self, value: &Value) -> Cow<'_, Type> {
        match value {
            Value::Arg(n) => Cow::Borrowed(&self.params[*n as usize].ty),
            Value::Inst(id) => Cow::Borrowed(&self.inst(*id).ty),
            Value::Const(c) => Cow::Owned(c.ty()),
        }
    }
}

/// A named metadata list: `!llvm.dbg.cu = !{!0}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedMetadata {
    /// The name without `!` (`llvm.dbg.cu`).
    pub name: String,
    /// The listed nodes.
    pub nodes: Vec<MdRef>,
}

/// A whole translation unit.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// `source_filename = "..."`.
    pub source_filename: Option<String>,
    /// `target datalayout = "..."`.
    pub datalayout: Option<String>,
    /// Where the datalayout string was read from.
    pub datalayout_pos: Pos,
    /// `target triple = "..."`.
    pub triple: Option<String>,
    /// Where the triple string was read from.
    pub triple_pos: Pos,
    /// Named struct types, by [`crate::ir::StructId`].
    pub structs: Vec<StructDef>,
    /// Global variables, by [`GlobalId`].
    pub globals: Vec<Global>,
    /// Functions (definitions and declarations), by [`FuncId`].
    pub functions: Vec<Function>,
    /// The metadata arenas.
    pub debug: DebugInfo,
    /// Function attribute groups, in file order.
    pub attribute_groups: Vec<AttributeGroup>,
    /// Comdats, in file order.
    pub comdats: Vec<Comdat>,
    /// `module asm` lines, in file order.
    pub module_asm: Vec<ModuleAsm>,
    /// Named metadata (`!llvm.dbg.cu`, `!llvm.module.flags`, `!llvm.ident`...), in order.
    pub named_metadata: Vec<NamedMetadata>,
}

impl Module {
    /// The function with this id.
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.0 as usize]
    }

    /// The global with this id.
    pub fn global(&self, id: GlobalId) -> &Global {
        &self.globals[id.0 as usize]
    }

    /// The function with this name, if any (linear search).
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| FuncId(i as u32))
    }

    /// The name of a global symbol (variable or function).
    pub fn symbol_name(&self, global: GlobalRef) -> &str {
        match global {
            GlobalRef::Var(id) => &self.global(id).name,
            GlobalRef::Func(id) => &self.function(id).name,
        }
    }

    /// The callee function of a direct call value (`@f`), if it is one.
    pub fn direct_callee(&self, callee: &Value) -> Option<FuncId> {
        match callee {
            Value::Const(Constant::Global(GlobalRef::Func(id))) => Some(*id),
            _ => None,
        }
    }

    /// The intrinsic a call's callee names, if it is a direct call of one.
    pub fn intrinsic(&self, callee: &Value) -> Option<super::inst::Intrinsic> {
        let id = self.direct_callee(callee)?;
        super::inst::Intrinsic::from_name(&self.function(id).name)
    }

    /// The named metadata list with this name, if present.
    pub fn named_metadata(&self, name: &str) -> Option<&NamedMetadata> {
        self.named_metadata.iter().find(|n| n.name == name)
    }

    /// The compile units listed in `!llvm.dbg.cu`.
    pub fn compile_units(&self) -> Vec<MdId> {
        self.named_metadata("llvm.dbg.cu")
            .map(|n| {
                n.nodes
                    .iter()
                    .filter_map(|r| match r {
                        MdRef::Node(id) => Some(*id),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The value of the module flag `key` (`!{i32 behaviour, !"key", value}`).
    pub fn module_flag(&self, key: &str) -> Option<&MdOperand> {
        let flags = self.named_metadata("llvm.module.flags")?;
        flags.nodes.iter().find_map(|r| {
            let MdRef::Node(id) = r else { return None };
            let MdNode::Tuple(ops) = self.debug.node(*id) else {
                return None;
            };
            match ops.as_slice() {
                [_, MdOperand::Str(k), value] if k == key => Some(value),
                _ => None,
            }
        })
    }

    /// Whether the module flag "debug-info-assignment-tracking" is true.
    pub fn assignment_tracking(&self) -> bool {
        matches!(
            self.module_flag("debug-info-assignment-tracking"),
            Some(MdOperand::Value(Constant::Int { value, .. })) if *value != 0
        )
    }
}
