//! Structural and debug-info invariants of an IR module.
//!
//! In: a [`Module`], as the parser or a pass left it. Out: `Ok(())`, or the
//! first broken invariant as a [`Diagnostic`] whose message names the
//! function and the instruction (`in function @f: `%7 = add` in block %4
//! uses %9, which does not dominate it`), with values, blocks and
//! instructions named as the printer writes them. Its position is the
//! instruction's source position when the model has one, else the
//! function's; its `file` is empty: the module does not know the name of
//! the file it came from, so the caller fills it in.
//!
//! What is checked: first each global (its initializer has its type, its
//! `!dbg` attachments are DIGlobalVariableExpressions), then, per function
//! definition, in this order (each stage may rely on the ones before):
//! 1. `code` structure: every block is non-empty and ends in exactly one
//!    terminator; phis come first; every operand, block and instruction id
//!    refers to something that exists; the entry block has no predecessors;
//!    each phi has one entry per predecessor edge.
//! 2. `code` types: operand and result types agree for every instruction
//!    (binary operations, comparisons, selects, phis, casts, memory, GEPs,
//!    calls against their signature, branches, switches, returns).
//! 3. `code` SSA dominance: every use in a reachable block is dominated by
//!    its definition (a phi's use sits at the end of its incoming block).
//! 4. `debug` debug info: the function's `!dbg` is a distinct DISubprogram
//!    attached to no other function; no phi
//!    carries debug records; every
//!    `!dbg` location and every debug record's DILocation has a scope chain
//!    that reaches that DISubprogram (through `inlinedAt` for inlined
//!    code); every record names an existing DILocalVariable (DILabel for
//!    labels) of the same subprogram as its location, uses operands that
//!    exist, and an expression whose `DW_OP_LLVM_arg`s name existing
//!    operands and whose fragment, if any, comes last and lies strictly
//!    inside the variable (when its size is known); a `#dbg_assign`'s
//!    DIAssignID is attached to no instruction of another function.

mod code;
mod debug;

use crate::ir::hash::FxHashMap;

use crate::error::{Diagnostic, Pos};
use crate::ir::print::{type_text, LocalNames};
use crate::ir::{Function, Global, InstId, InstKind, MdId, MdNode, Module, Value};

/// Checks every function of the module; returns the first problem found.
pub fn verify_module(module: &Module) -> Result<(), Diagnostic> {
    for global in &module.globals {
        check_global(module, global)?;
    }
    let assign_owners = assign_id_owners(module);
    let subprogram_owners = subprogram_owners(module);
    for function in &module.functions {
        check_abi_attributes(function)?;
        if function.is_declaration() {
            continue;
        }
        let checker = Checker {
            module,
            function,
            names: std::cell::OnceCell::new(),
            placed: std::cell::OnceCell::new(),
            assign_owners: &assign_owners,
            subprogram_owners: &subprogram_owners,
        };
        code::check_structure(&checker)?;
        code::check_types(&checker)?;
        code::check_dominance(&checker)?;
        debug::check_debug_info(&checker)?;
    }
    Ok(())
}

/// A global's initializer has the global's type and its `!dbg`
/// attachments are DIGlobalVariableExpressions.
fn check_global(module: &Module, global: &Global) -> Result<(), Diagnostic> {
    let problem = if let Some(init) = global.initializer.as_ref().filter(|c| c.ty() != global.ty) {
        Some(format!(
            "its initializer has type {}, expected {}",
            type_text(module, &init.ty()),
            type_text(module, &global.ty)
        ))
    } else {
        global
            .dbg
            .iter()
            .find(|id| {
                !matches!(
                    module.debug.nodes.get(id.0 as usize).map(|e| &e.node),
                    Some(MdNode::GlobalVariableExpression(_))
                )
            })
            .map(|id| {
                format!(
                    "its !dbg attachment #{} is not a DIGlobalVariableExpression",
                    id.0
                )
            })
    };
    match problem {
        None => Ok(()),
        Some(problem) => Err(Diagnostic {
            file: String::new(),
            pos: global.pos,
            message: format!("in global @{}: {problem}", global.name),
        }),
    }
}

/// `byval` and `sret` mark pointer parameters, and a function with an
/// `sret` parameter returns void (as LLVM's verifier requires).
fn check_abi_attributes(function: &Function) -> Result<(), Diagnostic> {
    let problem = function.params.iter().enumerate().find_map(|(i, param)| {
        let marked = param.attrs.byval.is_some() || param.attrs.sret.is_some();
        if marked && !param.ty.is_ptr() {
            Some(format!("parameter {} is byval or sret but not ptr", i + 1))
        } else if param.attrs.sret.is_some() && !function.ret_ty.is_void() {
            Some("a function with an sret parameter must return void".to_string())
        } else {
            None
        }
    });
    match problem {
        None => Ok(()),
        Some(problem) => Err(Diagnostic {
            file: String::new(),
            pos: function.pos,
            message: format!("in function @{}: {problem}", function.name),
        }),
    }
}

/// One function under check, with the names its values print as.
struct Checker<'a> {
    module: &'a Module,
    function: &'a Function,
    /// The printed names, worked out when a message first needs one.
    names: std::cell::OnceCell<LocalNames>,
    /// Whether each instruction is in a block, by [`InstId`].
    placed: std::cell::OnceCell<Vec<bool>>,
    /// For each `!DIAssignID` attached to an instruction: the function
    /// (by name) holding that instruction.
    assign_owners: &'a FxHashMap<MdId, &'a str>,
    /// For each DISubprogram attached to a function: the first function
    /// (by name) it is attached to.
    subprogram_owners: &'a FxHashMap<MdId, &'a str>,
}

/// The first function each DISubprogram is attached to.
fn subprogram_owners(module: &Module) -> FxHashMap<MdId, &str> {
    let mut owners = FxHashMap::default();
    for function in &module.functions {
        if let Some(sp) = function.subprogram {
            owners.entry(sp).or_insert(function.name.as_str());
        }
    }
    owners
}

/// Which function's instructions carry each `!DIAssignID`.
fn assign_id_owners(module: &Module) -> FxHashMap<MdId, &str> {
    let mut owners = FxHashMap::default();
    for function in &module.functions {
        for block in &function.blocks {
            for id in &block.insts {
                if let Some(assign) = function.insts.get(id.0 as usize).and_then(|i| i.assign_id) {
                    owners.insert(assign, function.name.as_str());
                }
            }
        }
    }
    owners
}

impl Checker<'_> {
    /// The names the function's values and blocks print as.
    fn names(&self) -> &LocalNames {
        self.names.get_or_init(|| LocalNames::assign(self.function))
    }

    /// Whether instruction `id` is in one of the function's blocks.
    fn is_placed(&self, id: InstId) -> bool {
        let placed = self.placed.get_or_init(|| {
            let mut placed = vec![false; self.function.insts.len()];
            for block in &self.function.blocks {
                for id in &block.insts {
                    if let Some(slot) = placed.get_mut(id.0 as usize) {
                        *slot = true;
                    }
                }
            }
            placed
        });
        placed.get(id.0 as usize).copied().unwrap_or(false)
    }

    /// An error about the function, at `inst`'s position if known.
    fn error(&self, inst: Option<InstId>, message: String) -> Diagnostic {
        let pos = inst
            .and_then(|id| self.function.insts.get(id.0 as usize))
            .map(|inst| inst.pos)
            .filter(|pos| pos.line != 0)
            .unwrap_or(self.function.pos);
        Diagnostic {
            file: String::new(),
            pos: Pos {
                line: pos.line,
                col: pos.col,
            },
            message: format!("in function @{}: {message}", self.function.name),
        }
    }

    /// `` `%7 = add` `` or `` `store` ``: an instruction as a message names it.
    fn inst_text(&self, id: InstId) -> String {
        let Some(inst) = self.function.insts.get(id.0 as usize) else {
            return format!("instruction #{}", id.0);
        };
        match self.names().insts.get(id.0 as usize) {
            Some(Some(name)) => format!("`{name} = {}`", opcode(&inst.kind)),
            _ => format!("`{}`", opcode(&inst.kind)),
        }
    }

    /// The printed name of a block (`%4`).
    fn block_text(&self, block: usize) -> &str {
        self.names().blocks.get(block).map_or("%<missing>", |s| s)
    }

    /// The printed name of a local value (`%9`), or a description of a constant.
    fn value_text(&self, value: &Value) -> String {
        match value {
            Value::Arg(n) => self
                .names()
                .args
                .get(*n as usize)
                .cloned()
                .unwrap_or_else(|| format!("argument #{n}")),
            Value::Inst(id) => match self.names().insts.get(id.0 as usize) {
                Some(Some(name)) => name.clone(),
                _ => format!("instruction #{}", id.0),
            },
            Value::Const(_) => "a constant".to_string(),
        }
    }
}

/// The mnemonic of an instruction (`add`, `icmp`, `call`, `br`).
fn opcode(kind: &InstKind) -> &'static str {
    kind.opcode()
}
