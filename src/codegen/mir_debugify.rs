//! MIR debugify (`dwarfsmith compile --mir-debugify`): LLVM's
//! `-mir-debugify` / `-mir-check-debugify` for our machine passes, with
//! location ranges instead of lines as what is checked.
//!
//! In: a module (parsed, gated, optimised as `compile` does it). Each
//! function is selected without its own debug info; then every definition
//! of a virtual register (general-purpose or scalar xmm) gets a synthetic
//! DBG_VALUE of a variable of its own right after the defining instruction,
//! and, before the last instruction of the same block that reads that
//! definition (before the register is written again), an invisible marker
//! (a DBG_VALUE of a constant for a variable of its own, ended by a `$noreg`
//! one right after the instruction) that keeps that instruction's position
//! through the machine passes. Variables are
//! numbered 1, 2, … over the module, in layout order. Then register
//! allocation, frame lowering and encoding run ([`finish_function`], the
//! code is the same as without debug values) and the variables' address
//! ranges are computed as for DWARF ([`history::variable_ranges`]).
//!
//! Out: a report in LLVM's wording. A variable with no address range at
//! all lost its location entirely (`WARNING: Missing variable N`); one
//! whose ranges do not cover its definition's last use in the block lost it
//! partially (`WARNING: Partially missing variable N`), naming that use. Each warning names the function
//! and the defining instruction as instruction selection made it. The last
//! line is `Machine IR debug info check: PASS` (no warning) or `FAIL`.

use dwarfsmith_emit::model::Op;

use crate::codegen::frame::FramePointer;
use crate::codegen::history::{self, HistoryInput};
use crate::codegen::isel::{self, ArgType, DebugExpr, DebugTable, IselOptions, VariableKey};
use crate::codegen::mir::{
    Access, DbgOperand, DbgOperands, DbgValue, Function, Inst, InstKind, Reg, RegClass, Width,
};
use crate::codegen::pipeline::{finish_function, FinishOptions};
use crate::error::Diagnostic;
use crate::ir::{FuncId, MdId, Module};

/// One synthetic variable: its number, where its definition was, and
/// whether a marker holds the position of its last use.
struct Synthetic {
    /// The variable's number (1-based, module-wide).
    number: usize,
    /// Its index in the function's [`DebugTable`].
    variable: u32,
    /// Its marker's index in the table, when the definition has a later use
    /// in its block.
    marker: Option<u32>,
    /// `bb.N` and the defining instruction, as selected.
    def: String,
}

/// MIR debugify of IR text as `compile` at `level` would compile it
/// (parse, gates, the optimiser's pipeline); diagnostics name `file`.
pub fn report_for_input(
    text: &str,
    file: &str,
    level: crate::OptLevel,
    optimiser: crate::OptimiserOptions,
) -> Result<String, Diagnostic> {
    let mut module = crate::parse_and_verify(text, file)?;
    crate::codegen::target::check_target(&module, file)?;
    crate::codegen::unsupported::check_module(&module, file)?;
    let level = match level {
        crate::OptLevel::O0 => 0,
        crate::OptLevel::O1 => 1,
        crate::OptLevel::O2 => 2,
    };
    crate::opt::command::optimize(&mut module, level, optimiser.assignment_tracking);
    report(&module).map_err(|mut error| {
        error.file = file.to_string();
        error
    })
}

/// The report of MIR debugify over every function definition of `module`.
pub fn report(module: &Module) -> Result<String, Diagnostic> {
    let mut out = String::new();
    let mut next_number = 1;
    let mut warnings = 0;
    for (index, f) in module.functions.iter().enumerate() {
        if f.is_declaration() {
            continue;
        }
        let selected = isel::select_function(
            module,
            FuncId(index as u32),
            &IselOptions { debug_info: false },
        )?;
        let mut mir = selected.mir;
        let mut table = DebugTable::default();
        let synthetics = apply(&mut mir, &mut table, &mut next_number);
        let options = FinishOptions {
            function_index: 0,
            frame_pointer: FramePointer::of(module, f),
        };
        let finished = finish_function(mir, &options).map_err(|e| Diagnostic {
            file: String::new(),
            pos: f.pos,
            message: format!("in function '{}': {e}", f.name),
        })?;
        let ranges = history::variable_ranges(&HistoryInput {
            mir: &finished.mir,
            inst_offsets: &finished.inst_offsets,
            block_offsets: &finished.block_offsets,
            code_size: finished.code.len() as u64,
            slot_offsets: &finished.frame.slot_offsets,
            spill_stores: &finished.spill_stores,
            table: &table,
        });
        // Where each marker (a last use) ended up, with the instruction it
        // stands before: its one DBG_VALUE of a constant (the `$noreg` after
        // the use keeps LiveDebugValues from restating it in other blocks).
        // A marker with no instruction after it in its block marks a use
        // the machine passes removed (a coalesced copy): nothing to check.
        let mut placed: Vec<Option<(u64, String)>> = vec![None; table.variables.len()];
        for (b, block) in finished.mir.blocks.iter().enumerate() {
            for (i, inst) in block.insts.iter().enumerate() {
                let InstKind::DbgValue(d) = &inst.kind else {
                    continue;
                };
                if *d.operands != [DbgOperand::Imm(0)] {
                    continue;
                }
                if let Some(user) = block.insts[i + 1..].iter().find(|x| !x.is_debug()) {
                    let offset = u64::from(finished.inst_offsets[b][i].0);
                    placed[d.variable as usize] = Some((offset, user.kind.to_string()));
                }
            }
        }
        for s in &synthetics {
            let key = table.variables[s.variable as usize];
            let own: Vec<_> = ranges
                .iter()
                .filter(|r| r.key == key && r.start < r.end)
                .collect();
            if own.is_empty() {
                out.push_str(&format!(
                    "WARNING: Missing variable {} in function {}: no location range (defined by `{}`)\n",
                    s.number, f.name, s.def
                ));
                warnings += 1;
                continue;
            }
            let Some((use_at, user)) = s.marker.and_then(|m| placed[m as usize].clone()) else {
                continue;
            };
            if own.iter().any(|r| r.start <= use_at && use_at < r.end) {
                continue;
            }
            out.push_str(&format!(
                "WARNING: Partially missing variable {} in function {}: no location at its use by `{user}` (defined by `{}`)\n",
                s.number, f.name, s.def
            ));
            warnings += 1;
        }
    }
    out.push_str(if warnings == 0 {
        "Machine IR debug info check: PASS\n"
    } else {
        "Machine IR debug info check: FAIL\n"
    });
    Ok(out)
}

/// Gives every virtual-register definition of `mir` a synthetic DBG_VALUE
/// and its last use in the block a marker (see the module doc); returns the
/// synthetic variables in order.
fn apply(mir: &mut Function, table: &mut DebugTable, next_number: &mut usize) -> Vec<Synthetic> {
    let mut synthetics = Vec::new();
    for b in 0..mir.blocks.len() {
        let original = std::mem::take(&mut mir.blocks[b].insts);
        // Per original instruction: DBG_VALUEs to put after it and markers before it.
        let mut after: Vec<Vec<Inst>> = vec![Vec::new(); original.len()];
        let mut before: Vec<Vec<Inst>> = vec![Vec::new(); original.len()];
        for (i, inst) in original.iter().enumerate() {
            if inst.is_debug() || inst.is_terminator() {
                continue;
            }
            for reg in defined_vregs(inst) {
                let Some(arg) = arg_type(mir, reg) else {
                    continue;
                };
                let number = *next_number;
                *next_number += 1;
                let variable = table.intern_variable(synthetic_key(number as u32));
                let expr = table.intern_expr(DebugExpr {
                    ops: vec![Op::Arg(0)],
                    args: vec![arg],
                });
                after[i].push(Inst::new(
                    InstKind::DbgValue(DbgValue {
                        variable,
                        operands: DbgOperands::one(DbgOperand::Reg(reg)),
                        expr,
                        indirect: false,
                        moved: false,
                    }),
                    inst.loc,
                ));
                let marker = last_use(&original, i, reg).map(|use_index| {
                    let marker = table.intern_variable(synthetic_key(MARKER | number as u32));
                    let expr = table.intern_expr(DebugExpr {
                        ops: vec![Op::Arg(0)],
                        args: vec![ArgType {
                            bits: 64,
                            signed: false,
                            float: false,
                        }],
                    });
                    let marker_value = |operand| {
                        Inst::new(
                            InstKind::DbgValue(DbgValue {
                                variable: marker,
                                operands: DbgOperands::one(operand),
                                expr,
                                indirect: false,
                                moved: false,
                            }),
                            original[use_index].loc,
                        )
                    };
                    before[use_index].push(marker_value(DbgOperand::Imm(0)));
                    after[use_index].insert(0, marker_value(DbgOperand::NoReg));
                    marker
                });
                synthetics.push(Synthetic {
                    number,
                    variable,
                    marker,
                    def: format!("{} in bb.{b}", inst.kind),
                });
            }
        }
        let block = &mut mir.blocks[b].insts;
        for (i, inst) in original.into_iter().enumerate() {
            block.append(&mut before[i]);
            block.push(inst);
            block.append(&mut after[i]);
        }
    }
    synthetics
}

/// Marks a marker's variable key apart from the synthetic variables'.
const MARKER: u32 = 1 << 31;

/// The table key of synthetic variable (or marker) `number`: no
/// DILocalVariable stands behind it, the number only keeps keys apart.
fn synthetic_key(number: u32) -> VariableKey {
    VariableKey {
        variable: MdId(number),
        inlined_at: None,
        fragment: None,
    }
}

/// The virtual registers an instruction writes, in operand order.
fn defined_vregs(inst: &Inst) -> Vec<Reg> {
    let mut regs = Vec::new();
    inst.kind.visit_regs(&mut |reg, access| {
        if matches!(reg, Reg::Virt(_))
            && matches!(access, Access::Def | Access::UseDef)
            && !regs.contains(&reg)
        {
            regs.push(reg);
        }
    });
    regs
}

/// The index of the last instruction after `def` in `insts` that reads
/// `reg` before something writes it again; `None` when there is none or it
/// is a terminator (no debug value may follow it).
fn last_use(insts: &[Inst], def: usize, reg: Reg) -> Option<usize> {
    let mut last = None;
    for (j, inst) in insts.iter().enumerate().skip(def + 1) {
        if inst.is_debug() {
            continue;
        }
        let (mut reads, mut writes) = (false, false);
        inst.kind.visit_regs(&mut |r, access| {
            if r == reg {
                reads |= matches!(access, Access::Use | Access::UseDef);
                writes |= matches!(access, Access::Def | Access::UseDef);
            }
        });
        if reads {
            last = (!inst.is_terminator()).then_some(j);
        }
        if writes {
            break;
        }
    }
    last
}

/// The width and kind of a virtual register's value, for its synthetic
/// DBG_VALUE's expression; `None` for a whole vector (no DWARF base type).
fn arg_type(mir: &Function, reg: Reg) -> Option<ArgType> {
    let Reg::Virt(v) = reg else {
        return None;
    };
    let info = mir.vregs.get(v.0 as usize)?;
    if info.vector {
        return None;
    }
    let bits = match info.width {
        Width::W8 => 8,
        Width::W16 => 16,
        Width::W32 => 32,
        Width::W64 => 64,
    };
    Some(ArgType {
        bits,
        signed: false,
        float: info.class == RegClass::Xmm,
    })
}
