//! One register per symbol address and block.
//!
//! In: a MIR function over virtual registers, before register allocation.
//! Out: the same function in which a symbol's address that a block
//! materialises more than once (`lea sym+k(%rip)`, or a 64-bit load of the
//! symbol's GOT entry) is materialised once: later copies are deleted and
//! their memory operands address from the first copy's register, their
//! displacements moved by the difference of the two `k`s.
//!
//! The rule: x86-64 has no RIP-relative address with an index register,
//! so instruction selection gives every `table[i]` of a global its own
//! `lea`; `crc32_z` makes twenty of them per loop iteration where llc makes
//! one. A later copy goes when its register and the first's each have
//! exactly one definition, every use of the later register is the base of
//! a memory operand (not its index, not a register operand) and every
//! moved displacement still fits in 32 bits. The first copy precedes the
//! later one in the block, so it dominates every use of the later register.
//! Only non-debug instructions decide, so debug information never changes
//! the code; a debug value of a deleted register names the first register
//! when the two addresses are equal and has no location otherwise.

use super::mir::{Access, AddressBase, DbgOperand, Function, InstKind, Reg, VReg, Width};
use std::collections::HashMap;

/// The symbol whose address an instruction materialises, and whether it
/// is reached through the GOT.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Materialised {
    symbol: String,
    through_got: bool,
}

/// What the pass learnt of one virtual register from the whole function.
#[derive(Clone, Copy, Default)]
struct RegUse {
    /// Definitions seen (a `UseDef` counts).
    defs: u32,
    /// Whether every read is as the base of a memory operand.
    base_only: bool,
    /// The smallest and largest displacement of those memory operands.
    disp_range: Option<(i32, i32)>,
}

/// Removes the repeated symbol-address materialisations of `f`; returns
/// how many.
pub fn run(f: &mut Function) -> usize {
    let uses = register_uses(f);
    // The later register of each pair, with its replacement and the
    // displacement its memory operands move by.
    let mut replaced: HashMap<VReg, (VReg, i64)> = HashMap::new();
    for block in &f.blocks {
        let mut first: HashMap<Materialised, (VReg, i64)> = HashMap::new();
        for inst in block.insts.iter().filter(|i| !i.is_debug()) {
            let Some((v, what, k)) = materialisation(&inst.kind) else {
                continue;
            };
            if uses[v.0 as usize].defs != 1 {
                continue;
            }
            let Some(&(earlier, earlier_k)) = first.get(&what) else {
                first.insert(what, (v, k));
                continue;
            };
            let usage = uses[v.0 as usize];
            let delta = k - earlier_k;
            let fits = usage.disp_range.is_none_or(|(lo, hi)| {
                i32::try_from(i64::from(lo) + delta).is_ok()
                    && i32::try_from(i64::from(hi) + delta).is_ok()
            });
            if usage.base_only && fits {
                replaced.insert(v, (earlier, delta));
            }
        }
    }
    if replaced.is_empty() {
        return 0;
    }
    for block in &mut f.blocks {
        block.insts.retain(|inst| {
            materialisation(&inst.kind).is_none_or(|(v, _, _)| !replaced.contains_key(&v))
        });
        for inst in &mut block.insts {
            if let InstKind::DbgValue(d) = &mut inst.kind {
                for op in &mut d.operands {
                    if let DbgOperand::Reg(Reg::Virt(v)) = *op {
                        if let Some(&(earlier, delta)) = replaced.get(&v) {
                            *op = if delta == 0 {
                                DbgOperand::Reg(Reg::Virt(earlier))
                            } else {
                                DbgOperand::NoReg
                            };
                        }
                    }
                }
                continue;
            }
            inst.kind.visit_addresses_mut(&mut |addr| {
                if let AddressBase::Reg(Reg::Virt(v)) = addr.base {
                    if let Some(&(earlier, delta)) = replaced.get(&v) {
                        addr.base = AddressBase::Reg(Reg::Virt(earlier));
                        // In range: checked against every use above.
                        addr.disp = (i64::from(addr.disp) + delta) as i32;
                    }
                }
            });
        }
    }
    replaced.len()
}

/// The register a symbol-address materialisation defines, the address,
/// and its displacement from the symbol.
fn materialisation(kind: &InstKind) -> Option<(VReg, Materialised, i64)> {
    match kind {
        InstKind::Lea {
            dst: Reg::Virt(v),
            addr,
        } if addr.index.is_none() => match &addr.base {
            AddressBase::Symbol(symbol) => Some((
                *v,
                Materialised {
                    symbol: symbol.clone(),
                    through_got: false,
                },
                i64::from(addr.disp),
            )),
            _ => None,
        },
        InstKind::Load {
            dst: Reg::Virt(v),
            addr,
            width: Width::W64,
        } if addr.index.is_none() && addr.disp == 0 => match &addr.base {
            AddressBase::Got(symbol) => Some((
                *v,
                Materialised {
                    symbol: symbol.clone(),
                    through_got: true,
                },
                0,
            )),
            _ => None,
        },
        _ => None,
    }
}

/// Definitions and reads of every virtual register of `f`, from its
/// non-debug instructions; the reads only of those a materialisation
/// defines (the others are never replaced).
fn register_uses(f: &Function) -> Vec<RegUse> {
    let mut uses = vec![
        RegUse {
            base_only: true,
            ..RegUse::default()
        };
        f.vregs.len()
    ];
    let mut materialised = vec![false; f.vregs.len()];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        if let Some((v, _, _)) = materialisation(&inst.kind) {
            materialised[v.0 as usize] = true;
        }
    }
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        if inst.is_debug() {
            continue;
        }
        let mut reads: Vec<VReg> = Vec::new();
        inst.kind.visit_regs(&mut |reg, access| {
            let Reg::Virt(v) = reg else { return };
            if access != Access::Use {
                uses[v.0 as usize].defs += 1;
            }
            if access != Access::Def && materialised[v.0 as usize] {
                reads.push(v);
            }
        });
        if reads.is_empty() {
            continue;
        }
        // Every read must be matched by a memory operand based on it.
        let mut kind = inst.kind.clone();
        kind.visit_addresses_mut(&mut |addr| {
            if let AddressBase::Reg(Reg::Virt(v)) = addr.base {
                if let Some(at) = reads.iter().position(|&r| r == v) {
                    reads.swap_remove(at);
                    let usage = &mut uses[v.0 as usize];
                    usage.disp_range = Some(match usage.disp_range {
                        None => (addr.disp, addr.disp),
                        Some((lo, hi)) => (lo.min(addr.disp), hi.max(addr.disp)),
                    });
                }
            }
        });
        for v in reads {
            uses[v.0 as usize].base_only = false;
        }
    }
    uses
}
