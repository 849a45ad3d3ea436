//! The code invariants: block structure, operand types, SSA dominance.
//!
//! In: a [`Checker`] over one function definition. Out: the first broken
//! invariant as a [`Diagnostic`]. Promise: [`check_structure`] passing means
//! every id in the function refers to something that exists and every block
//! ends in one terminator, so [`check_types`] and [`check_dominance`] (and
//! the debug checks) may index freely.

use super::Checker;
use crate::error::Diagnostic;
use crate::ir::cfg::DomTree;
use crate::ir::print::type_text;
use crate::ir::{
    Atomic, BlockId, CastOp, Constant, InstId, InstKind, Ordering, RmwOp, Type, Value,
};

/// Blocks end in exactly one terminator, phis come first, every id exists,
/// the entry has no predecessors, phis match predecessor edges.
pub(super) fn check_structure(c: &Checker) -> Result<(), Diagnostic> {
    let f = c.function;
    let mut placed: Vec<Option<BlockId>> = vec![None; f.insts.len()];
    for (b, block) in f.blocks.iter().enumerate() {
        for &id in &block.insts {
            let Some(slot) = placed.get_mut(id.0 as usize) else {
                return Err(c.error(
                    None,
                    format!(
                        "block {} lists instruction #{}, which is not in the function",
                        c.block_text(b),
                        id.0
                    ),
                ));
            };
            if slot.is_some() {
                return Err(c.error(
                    Some(id),
                    format!("{} is listed in more than one block", c.inst_text(id)),
                ));
            }
            *slot = Some(BlockId(b as u32));
        }
    }
    for (b, block) in f.blocks.iter().enumerate() {
        let Some(&last) = block.insts.last() else {
            return Err(c.error(
                None,
                format!("block {} is empty: it needs a terminator", c.block_text(b)),
            ));
        };
        if !f.inst(last).is_terminator() {
            return Err(c.error(
                Some(last),
                format!(
                    "block {} does not end in a terminator (its last instruction is {})",
                    c.block_text(b),
                    c.inst_text(last)
                ),
            ));
        }
        let mut after_non_phi = false;
        for &id in &block.insts {
            let inst = f.inst(id);
            if inst.is_terminator() && id != last {
                return Err(c.error(
                    Some(id),
                    format!(
                        "terminator {} is in the middle of block {}",
                        c.inst_text(id),
                        c.block_text(b)
                    ),
                ));
            }
            let is_phi = matches!(inst.kind, InstKind::Phi { .. });
            if is_phi && after_non_phi {
                return Err(c.error(
                    Some(id),
                    format!("{} comes after a non-phi instruction", at(c, id, b)),
                ));
            }
            after_non_phi |= !is_phi;
            for value in inst.operands() {
                check_value(c, id, b, value, &placed)?;
            }
            let mut targets = inst.successors();
            if let InstKind::Phi { incoming } = &inst.kind {
                targets.extend(incoming.iter().map(|(_, block)| *block));
            }
            if let Some(bad) = targets.iter().find(|t| t.0 as usize >= f.blocks.len()) {
                return Err(c.error(
                    Some(id),
                    format!(
                        "{} refers to block #{}, which does not exist",
                        at(c, id, b),
                        bad.0
                    ),
                ));
            }
        }
    }
    check_phis(c)
}

/// A value operand refers to an existing argument or to a placed
/// instruction that has a result.
fn check_value(
    c: &Checker,
    user: InstId,
    block: usize,
    value: &Value,
    placed: &[Option<BlockId>],
) -> Result<(), Diagnostic> {
    let problem = match value {
        Value::Arg(n) if *n as usize >= c.function.params.len() => {
            let count = c.function.params.len();
            let plural = if count == 1 { "" } else { "s" };
            format!("uses argument #{n}, but the function has {count} parameter{plural}")
        }
        Value::Inst(id) => match placed.get(id.0 as usize) {
            None => format!("uses instruction #{}, which does not exist", id.0),
            Some(None) => format!("uses instruction #{}, which is in no block", id.0),
            Some(Some(_)) if c.function.inst(*id).ty.is_void() => {
                format!("uses {}, which has no result", c.inst_text(*id))
            }
            Some(Some(_)) => return Ok(()),
        },
        _ => return Ok(()),
    };
    Err(c.error(Some(user), format!("{} {problem}", at(c, user, block))))
}

/// The entry block has no predecessors, and every phi has exactly one entry
/// per predecessor edge (entries for the same block carry the same value).
fn check_phis(c: &Checker) -> Result<(), Diagnostic> {
    let f = c.function;
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); f.blocks.len()];
    for (b, block) in f.blocks.iter().enumerate() {
        let last = *block.insts.last().expect("checked non-empty");
        for succ in f.inst(last).successors() {
            preds[succ.0 as usize].push(b as u32);
        }
    }
    if let Some(&p) = preds[0].first() {
        return Err(c.error(
            None,
            format!(
                "the entry block {} has a predecessor, {}",
                c.block_text(0),
                c.block_text(p as usize)
            ),
        ));
    }
    let list = |blocks: &[u32]| -> String {
        let names: Vec<&str> = blocks.iter().map(|&b| c.block_text(b as usize)).collect();
        format!("[{}]", names.join(", "))
    };
    for (b, block) in f.blocks.iter().enumerate() {
        let mut expected = preds[b].clone();
        expected.sort_unstable();
        for &id in &block.insts {
            let InstKind::Phi { incoming } = &f.inst(id).kind else {
                break;
            };
            let mut entries: Vec<(u32, &Value)> =
                incoming.iter().map(|(v, block)| (block.0, v)).collect();
            entries.sort_by_key(|(block, _)| *block);
            let blocks: Vec<u32> = entries.iter().map(|(block, _)| *block).collect();
            if blocks != expected {
                return Err(c.error(
                    Some(id),
                    format!(
                        "{} has entries for {} but the block's predecessors are {}",
                        at(c, id, b),
                        list(&blocks),
                        list(&expected)
                    ),
                ));
            }
            if let Some(pair) = entries
                .windows(2)
                .find(|pair| pair[0].0 == pair[1].0 && pair[0].1 != pair[1].1)
            {
                return Err(c.error(
                    Some(id),
                    format!(
                        "{} has different values for predecessor {}",
                        at(c, id, b),
                        c.block_text(pair[0].0 as usize)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Operand and result types agree for every instruction.
pub(super) fn check_types(c: &Checker) -> Result<(), Diagnostic> {
    let f = c.function;
    for (b, block) in f.blocks.iter().enumerate() {
        for &id in &block.insts {
            if let Some(problem) = type_problem(c, id) {
                return Err(c.error(Some(id), format!("{}: {problem}", at(c, id, b))));
            }
        }
    }
    Ok(())
}

/// What is wrong with the types of one instruction, if anything.
fn type_problem(c: &Checker, id: InstId) -> Option<String> {
    let f = c.function;
    let inst = f.inst(id);
    let ty = |v: &Value| f.value_type(v);
    let text = |t: &Type| type_text(c.module, t);
    let expect = |what: &str, v: &Value, want: &Type| -> Option<String> {
        let got = f.value_type_ref(v);
        (*got != *want).then(|| format!("{what} has type {}, expected {}", text(&got), text(want)))
    };
    match &inst.kind {
        InstKind::Binary { lhs, rhs, .. } => {
            if !inst.ty.is_int_or_int_vector() {
                return Some(format!("result type {} is not an integer", text(&inst.ty)));
            }
            expect("the left operand", lhs, &inst.ty)
                .or_else(|| expect("the right operand", rhs, &inst.ty))
        }
        InstKind::ICmp { lhs, rhs, .. } => {
            let lt = ty(lhs);
            if !(lt.scalar().int_bits().is_some() || lt.scalar().is_ptr()) {
                return Some(format!("compares values of type {}", text(&lt)));
            }
            expect("the right operand", rhs, &lt).or_else(|| {
                (inst.ty != lt.with_lanes_of(Type::I1))
                    .then(|| "the result is not i1 (per lane)".to_string())
            })
        }
        InstKind::Select {
            cond,
            if_true,
            if_false,
        } => {
            let ct = ty(cond);
            let lanes_ok = ct == Type::I1 || ct == inst.ty.with_lanes_of(Type::I1);
            (!lanes_ok)
                .then(|| format!("the condition has type {}, expected i1 per lane", text(&ct)))
                .or_else(|| expect("the true value", if_true, &inst.ty))
                .or_else(|| expect("the false value", if_false, &inst.ty))
        }
        // The value's name is looked up only for a message: naming the
        // function's values costs more than checking it.
        InstKind::Phi { incoming } => incoming.iter().find_map(|(v, _)| {
            let got = f.value_type_ref(v);
            (*got != inst.ty).then(|| {
                format!(
                    "incoming {} has type {}, expected {}",
                    c.value_text(v),
                    text(&got),
                    text(&inst.ty)
                )
            })
        }),
        InstKind::Cast { op, value, .. } => cast_problem(*op, &ty(value), &inst.ty).map(|p| {
            format!(
                "{} {} to {}: {p}",
                op.name(),
                text(&ty(value)),
                text(&inst.ty)
            )
        }),
        InstKind::Load {
            ptr, atomic, align, ..
        } => expect("the address", ptr, &Type::Ptr)
            .or_else(|| inst.ty.is_void().then(|| "it loads void".to_string()))
            .or_else(|| {
                atomic_access_problem(c, atomic.as_ref(), *align, &inst.ty, Ordering::Release)
            }),
        InstKind::Store {
            ptr,
            value,
            atomic,
            align,
            ..
        } => expect("the address", ptr, &Type::Ptr).or_else(|| {
            atomic_access_problem(c, atomic.as_ref(), *align, &ty(value), Ordering::Acquire)
        }),
        InstKind::FBinary { lhs, rhs, .. } => {
            if !inst.ty.is_fp_or_fp_vector() {
                return Some(format!(
                    "result type {} is not floating-point",
                    text(&inst.ty)
                ));
            }
            expect("the left operand", lhs, &inst.ty)
                .or_else(|| expect("the right operand", rhs, &inst.ty))
        }
        InstKind::FNeg { value, .. } => {
            if !inst.ty.is_fp_or_fp_vector() {
                return Some(format!(
                    "result type {} is not floating-point",
                    text(&inst.ty)
                ));
            }
            expect("the operand", value, &inst.ty)
        }
        InstKind::FCmp { lhs, rhs, .. } => {
            let lt = ty(lhs);
            if !lt.is_fp_or_fp_vector() {
                return Some(format!("compares values of type {}", text(&lt)));
            }
            expect("the right operand", rhs, &lt).or_else(|| {
                (inst.ty != lt.with_lanes_of(Type::I1))
                    .then(|| "the result is not i1 (per lane)".to_string())
            })
        }
        InstKind::ExtractElement { vector, index } => {
            let vt = ty(vector);
            let Type::Vector { elem, .. } = &vt else {
                return Some(format!("extracts from {}, not a vector", text(&vt)));
            };
            (ty(index).int_bits().is_none())
                .then(|| "the lane index is not an integer".to_string())
                .or_else(|| expect("the result", &Value::Inst(id), elem))
        }
        InstKind::InsertElement {
            vector,
            elem,
            index,
        } => {
            let Type::Vector { elem: lane, .. } = &inst.ty else {
                return Some(format!("inserts into {}, not a vector", text(&inst.ty)));
            };
            expect("the vector", vector, &inst.ty)
                .or_else(|| expect("the inserted value", elem, lane))
                .or_else(|| {
                    (ty(index).int_bits().is_none())
                        .then(|| "the lane index is not an integer".to_string())
                })
        }
        InstKind::ShuffleVector { lhs, rhs, mask } => {
            let vt = ty(lhs);
            let Type::Vector { len, elem } = &vt else {
                return Some(format!("shuffles {}, not a vector", text(&vt)));
            };
            let want = Type::Vector {
                len: mask.len() as u32,
                elem: elem.clone(),
            };
            expect("the second vector", rhs, &vt)
                .or_else(|| {
                    mask.iter()
                        .flatten()
                        .find(|&&lane| lane >= 2 * len)
                        .map(|lane| {
                            format!("mask lane {lane} is out of range for two vectors of {len}")
                        })
                })
                .or_else(|| expect("the result", &Value::Inst(id), &want))
        }
        InstKind::ExtractValue { aggregate, indices } => {
            match member_type(c, &ty(aggregate), indices) {
                Ok(member) => expect("the result", &Value::Inst(id), &member),
                Err(problem) => Some(problem),
            }
        }
        InstKind::InsertValue {
            aggregate,
            elem,
            indices,
        } => expect("the aggregate", aggregate, &inst.ty).or_else(|| {
            match member_type(c, &inst.ty, indices) {
                Ok(member) => expect("the inserted value", elem, &member),
                Err(problem) => Some(problem),
            }
        }),
        InstKind::CmpXchg {
            ptr,
            cmp,
            new,
            success,
            failure,
            ..
        } => {
            let vt = ty(cmp);
            let want = Type::Struct {
                fields: vec![vt.clone(), Type::I1],
                packed: false,
            };
            expect("the address", ptr, &Type::Ptr)
                .or_else(|| {
                    (!(vt.int_bits().is_some() || vt.is_ptr()))
                        .then(|| format!("compares and exchanges {}", text(&vt)))
                })
                .or_else(|| expect("the new value", new, &vt))
                .or_else(|| {
                    (*success == Ordering::Unordered
                        || matches!(
                            failure,
                            Ordering::Unordered | Ordering::Release | Ordering::AcqRel
                        ))
                    .then(|| {
                        format!(
                            "orderings {} {} are not allowed",
                            success.name(),
                            failure.name()
                        )
                    })
                })
                .or_else(|| expect("the result", &Value::Inst(id), &want))
        }
        InstKind::AtomicRmw { op, ptr, value, .. } => {
            let vt = ty(value);
            let kind_ok = if op.is_fp() {
                vt.float_kind().is_some()
            } else if *op == RmwOp::Xchg {
                vt.int_bits().is_some() || vt.is_ptr() || vt.float_kind().is_some()
            } else {
                vt.int_bits().is_some()
            };
            expect("the address", ptr, &Type::Ptr)
                .or_else(|| (!kind_ok).then(|| format!("atomicrmw {} on {}", op.name(), text(&vt))))
                .or_else(|| expect("the result", &Value::Inst(id), &vt))
        }
        InstKind::Fence { atomic } => {
            matches!(atomic.ordering, Ordering::Unordered | Ordering::Monotonic)
                .then(|| format!("a fence cannot be {}", atomic.ordering.name()))
        }
        // LLVM takes a `va_list` of any type (only the target gives it meaning).
        InstKind::VaArg { .. } => None,
        InstKind::IndirectBr { address, .. } => expect("the address", address, &Type::Ptr),
        InstKind::Gep { base, indices, .. } => {
            let lanes = std::iter::once(base)
                .chain(indices)
                .find_map(|v| ty(v).vector_len());
            let bt = ty(base);
            (!bt.scalar().is_ptr())
                .then(|| format!("the base has type {}, expected ptr", text(&bt)))
                .or_else(|| {
                    indices
                        .iter()
                        .find(|i| ty(i).scalar().int_bits().is_none())
                        .map(|i| format!("index {} is not an integer", c.value_text(i)))
                })
                .or_else(|| {
                    std::iter::once(base)
                        .chain(indices)
                        .any(|v| ty(v).vector_len().is_some_and(|n| Some(n) != lanes))
                        .then(|| "the operands have different vector lengths".to_string())
                })
                .or_else(|| {
                    let want = match lanes {
                        Some(len) => Type::Vector {
                            len,
                            elem: Box::new(Type::Ptr),
                        },
                        None => Type::Ptr,
                    };
                    (inst.ty != want).then(|| format!("the result is not {}", text(&want)))
                })
        }
        InstKind::Alloca { count, .. } => count
            .as_ref()
            .filter(|n| ty(n).int_bits().is_none())
            .map(|_| "the element count is not an integer".to_string())
            .or_else(|| (inst.ty != Type::Ptr).then(|| "the result is not ptr".to_string())),
        InstKind::LandingPad { clauses, cleanup } => landing_pad_problem(c, id, clauses, *cleanup),
        InstKind::Resume { .. } => f
            .attrs
            .personality
            .is_none()
            .then(|| "resume in a function without a personality".to_string()),
        InstKind::Invoke { unwind, .. } if !is_landing_pad(f, *unwind) => Some(format!(
            "the unwind destination {} does not open with a landingpad",
            c.block_text(unwind.0 as usize)
        )),
        InstKind::Call {
            fn_ty,
            callee,
            args,
            ..
        }
        | InstKind::Invoke {
            fn_ty,
            callee,
            args,
            ..
        } => {
            if let Some(p) = expect("the callee", callee, &Type::Ptr) {
                return Some(p);
            }
            let fixed = fn_ty.params.len();
            if args.len() < fixed || (args.len() > fixed && !fn_ty.varargs) {
                return Some(format!(
                    "passes {} arguments to a function of {fixed} parameters",
                    args.len()
                ));
            }
            if let Some(p) =
                args.iter()
                    .zip(&fn_ty.params)
                    .enumerate()
                    .find_map(|(i, (arg, want))| {
                        expect(&format!("argument {}", i + 1), &arg.value, want)
                    })
            {
                return Some(p);
            }
            // Parameters the callee marks `immarg` take constants only.
            let callee_params = c
                .module
                .direct_callee(callee)
                .and_then(|id| c.module.functions.get(id.0 as usize))
                .map(|callee| &callee.params[..])
                .unwrap_or(&[]);
            if let Some(i) = args.iter().zip(callee_params).position(|(arg, param)| {
                param.attrs.immarg && !matches!(arg.value, Value::Const(_))
            }) {
                return Some(format!(
                    "argument {} must be a constant (the parameter is immarg)",
                    i + 1
                ));
            }
            (inst.ty != fn_ty.ret).then(|| {
                format!(
                    "the result type {} is not the callee's return type {}",
                    text(&inst.ty),
                    text(&fn_ty.ret)
                )
            })
        }
        InstKind::Freeze { value } => expect("the operand", value, &inst.ty),
        InstKind::CondBr { cond, .. } => expect("the condition", cond, &Type::I1),
        InstKind::Switch { value, cases, .. } => {
            let vt = ty(value);
            if vt.int_bits().is_none() {
                return Some(format!("switches on a value of type {}", text(&vt)));
            }
            if let Some((case, _)) = cases.iter().find(|(case, _)| case.ty() != vt) {
                return Some(format!(
                    "case value of type {} on a switch over {}",
                    text(&case.ty()),
                    text(&vt)
                ));
            }
            let mut values: Vec<&Constant> = cases.iter().map(|(case, _)| case).collect();
            values.sort_by_key(|case| case.sext_value());
            values
                .windows(2)
                .find(|pair| pair[0] == pair[1])
                .map(|pair| {
                    format!(
                        "case value {:?} appears twice",
                        pair[0].sext_value().unwrap_or(0)
                    )
                })
        }
        InstKind::Ret { value } => match value {
            Some(v) => expect("the returned value", v, &f.ret_ty),
            None => (!f.ret_ty.is_void())
                .then(|| format!("returns void from a function returning {}", text(&f.ret_ty))),
        },
        InstKind::Br { .. } | InstKind::Unreachable => None,
    }
}

/// Whether `block` of `f` opens (after its phis) with a `landingpad`.
fn is_landing_pad(f: &crate::ir::Function, block: crate::ir::BlockId) -> bool {
    f.blocks
        .get(block.0 as usize)
        .and_then(|b| {
            b.insts
                .iter()
                .find(|&&i| !matches!(f.inst(i).kind, InstKind::Phi { .. }))
        })
        .is_some_and(|&i| matches!(f.inst(i).kind, InstKind::LandingPad { .. }))
}

/// What is wrong with a `landingpad`: no personality on its function, not
/// the first non-phi of its block, no clause and no `cleanup`, a result
/// that is not `{ ptr, i32 }`, a clause that is not a `ptr` (`catch`) or
/// an array of them (`filter`).
fn landing_pad_problem(
    c: &Checker,
    id: InstId,
    clauses: &[crate::ir::LandingPadClause],
    cleanup: bool,
) -> Option<String> {
    let f = c.function;
    if f.attrs.personality.is_none() {
        return Some("landingpad in a function without a personality".into());
    }
    let first_non_phi = f.blocks.iter().find_map(|b| {
        let first = b
            .insts
            .iter()
            .find(|&&i| !matches!(f.inst(i).kind, InstKind::Phi { .. }))?;
        b.insts.contains(&id).then_some(*first)
    });
    if first_non_phi != Some(id) {
        return Some("landingpad is not the first non-phi instruction of its block".into());
    }
    if clauses.is_empty() && !cleanup {
        return Some("landingpad has neither clauses nor cleanup".into());
    }
    let want = Type::Struct {
        fields: vec![Type::Ptr, Type::Int(32)],
        packed: false,
    };
    if f.inst(id).ty != want {
        return Some("the landingpad's type is not { ptr, i32 }".into());
    }
    clauses.iter().find_map(|clause| match clause {
        crate::ir::LandingPadClause::Catch(constant) => {
            (constant.ty() != Type::Ptr).then(|| "a catch clause is not a ptr".to_string())
        }
        crate::ir::LandingPadClause::Filter(constant) => match constant.ty() {
            Type::Array { elem, .. } if *elem == Type::Ptr => None,
            _ => Some("a filter clause is not an array of ptr".to_string()),
        },
    })
}

/// What is wrong with an atomic load or store: an ordering it may not
/// have (`forbidden` and `acq_rel`), a missing alignment or a type that
/// is not an integer, pointer or float.
fn atomic_access_problem(
    c: &Checker,
    atomic: Option<&Atomic>,
    align: Option<u32>,
    ty: &Type,
    forbidden: Ordering,
) -> Option<String> {
    let atomic = atomic?;
    if atomic.ordering == forbidden || atomic.ordering == Ordering::AcqRel {
        return Some(format!(
            "an atomic access cannot be {}",
            atomic.ordering.name()
        ));
    }
    if align.is_none() {
        return Some("an atomic access needs an alignment".to_string());
    }
    (!(ty.int_bits().is_some() || ty.is_ptr() || ty.float_kind().is_some()))
        .then(|| format!("atomic access of {}", type_text(c.module, ty)))
}

/// The type of the member an `extractvalue`/`insertvalue` index path names.
fn member_type(c: &Checker, aggregate: &Type, indices: &[u32]) -> Result<Type, String> {
    if indices.is_empty() {
        return Err("the index list is empty".to_string());
    }
    let mut current = aggregate.clone();
    for &index in indices {
        current = match &current {
            Type::Array { len, elem } if u64::from(index) < *len => (**elem).clone(),
            _ => match c.module.struct_fields(&current) {
                Some((fields, _)) if (index as usize) < fields.len() => {
                    fields[index as usize].clone()
                }
                _ => {
                    return Err(format!(
                        "index {index} is out of range for {}",
                        type_text(c.module, &current)
                    ))
                }
            },
        };
    }
    Ok(current)
}

/// The size in bits of a type a bitcast may convert (scalars and vectors).
fn bitcast_bits(ty: &Type) -> Option<u64> {
    match ty {
        Type::Int(bits) => Some(u64::from(*bits)),
        Type::Float(kind) => Some(u64::from(kind.bits())),
        Type::Vector { len, elem } => Some(u64::from(*len) * bitcast_bits(elem)?),
        _ => None,
    }
}

/// Whether a cast from `from` to `to` is one LLVM allows.
fn cast_problem(op: CastOp, from: &Type, to: &Type) -> Option<&'static str> {
    if op != CastOp::BitCast {
        if from.vector_len() != to.vector_len() {
            return Some("both types must have the same number of lanes");
        }
        return scalar_cast_problem(op, from.scalar(), to.scalar());
    }
    let same_size = from == to
        || (from.scalar().is_ptr() && to.scalar().is_ptr() && from.vector_len() == to.vector_len())
        || (!from.scalar().is_ptr()
            && !to.scalar().is_ptr()
            && bitcast_bits(from).is_some()
            && bitcast_bits(from) == bitcast_bits(to));
    (!same_size).then_some("both types must be the same size and kind")
}

/// Whether a lane-wise cast from `from` to `to` is one LLVM allows.
fn scalar_cast_problem(op: CastOp, from: &Type, to: &Type) -> Option<&'static str> {
    let (fb, tb) = (from.int_bits(), to.int_bits());
    let (ff, tf) = (
        from.float_kind().map(|k| k.bits()),
        to.float_kind().map(|k| k.bits()),
    );
    match op {
        CastOp::ZExt | CastOp::SExt => match (fb, tb) {
            (Some(f), Some(t)) if f < t => None,
            (Some(_), Some(_)) => Some("the result must be wider"),
            _ => Some("both types must be integers"),
        },
        CastOp::Trunc => match (fb, tb) {
            (Some(f), Some(t)) if f > t => None,
            (Some(_), Some(_)) => Some("the result must be narrower"),
            _ => Some("both types must be integers"),
        },
        CastOp::PtrToInt => {
            (!(from.is_ptr() && tb.is_some())).then_some("it needs ptr to an integer")
        }
        CastOp::IntToPtr => {
            (!(fb.is_some() && to.is_ptr())).then_some("it needs an integer to ptr")
        }
        CastOp::BitCast => None,
        CastOp::FPTrunc => match (ff, tf) {
            (Some(f), Some(t)) if f > t => None,
            (Some(_), Some(_)) => Some("the result must be narrower"),
            _ => Some("both types must be floating-point"),
        },
        CastOp::FPExt => match (ff, tf) {
            (Some(f), Some(t)) if f < t => None,
            (Some(_), Some(_)) => Some("the result must be wider"),
            _ => Some("both types must be floating-point"),
        },
        CastOp::FPToUI | CastOp::FPToSI => {
            (!(ff.is_some() && tb.is_some())).then_some("it needs a float to an integer")
        }
        CastOp::UIToFP | CastOp::SIToFP => {
            (!(fb.is_some() && tf.is_some())).then_some("it needs an integer to a float")
        }
    }
}

/// Every use in a reachable block is dominated by its definition.
pub(super) fn check_dominance(c: &Checker) -> Result<(), Diagnostic> {
    let f = c.function;
    let dom = Dominance::new(f.blocks.len(), &DomTree::compute(f));
    let mut position: Vec<(BlockId, usize)> = vec![(BlockId(0), 0); f.insts.len()];
    for (b, block) in f.blocks.iter().enumerate() {
        for (i, &id) in block.insts.iter().enumerate() {
            position[id.0 as usize] = (BlockId(b as u32), i);
        }
    }
    for (b, block) in f.blocks.iter().enumerate() {
        let here = BlockId(b as u32);
        if !dom.is_reachable(here) {
            continue;
        }
        for (i, &id) in block.insts.iter().enumerate() {
            let inst = f.inst(id);
            if let InstKind::Phi { incoming } = &inst.kind {
                for (value, pred) in incoming {
                    let Value::Inst(def) = value else { continue };
                    let (def_block, _) = position[def.0 as usize];
                    if dom.is_reachable(*pred) && !dom.dominates(def_block, *pred) {
                        return Err(c.error(
                            Some(id),
                            format!(
                                "{} uses {} on the edge from {}, but {} does not dominate {}",
                                at(c, id, b),
                                c.value_text(value),
                                c.block_text(pred.0 as usize),
                                c.value_text(value),
                                c.block_text(pred.0 as usize)
                            ),
                        ));
                    }
                }
                continue;
            }
            for value in inst.operands() {
                let Value::Inst(def) = value else { continue };
                let (def_block, def_index) = position[def.0 as usize];
                let dominated = if def_block == here {
                    def_index < i
                } else {
                    dom.dominates(def_block, here)
                };
                if !dominated {
                    return Err(c.error(
                        Some(id),
                        format!(
                            "{} uses {}, which does not dominate it",
                            at(c, id, b),
                            c.value_text(value)
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Dominance queries in constant time: each reachable block's entry and
/// exit numbers in a depth-first walk of the dominator tree (`a` dominates
/// `b` when `b`'s interval lies inside `a`'s), so a function with long
/// dominator chains is checked in linear time.
struct Dominance {
    /// Per block: (entry, exit) numbers; `None` when unreachable.
    interval: Vec<Option<(u32, u32)>>,
}

impl Dominance {
    fn new(blocks: usize, tree: &DomTree) -> Dominance {
        let mut children = vec![Vec::new(); blocks];
        for &block in tree.rpo().iter().skip(1) {
            if let Some(parent) = tree.idom(block) {
                children[parent.0 as usize].push(block.0 as usize);
            }
        }
        let mut interval = vec![None; blocks];
        let mut clock = 0u32;
        let mut entered = vec![0u32; blocks];
        if let Some(&entry) = tree.rpo().first() {
            // (block, index of the next child to visit)
            let mut stack = vec![(entry.0 as usize, 0usize)];
            entered[entry.0 as usize] = clock;
            while let Some((block, next)) = stack.last_mut() {
                let block = *block;
                if let Some(&child) = children[block].get(*next) {
                    *next += 1;
                    clock += 1;
                    entered[child] = clock;
                    stack.push((child, 0));
                } else {
                    clock += 1;
                    interval[block] = Some((entered[block], clock));
                    stack.pop();
                }
            }
        }
        Dominance { interval }
    }

    fn is_reachable(&self, block: BlockId) -> bool {
        self.interval[block.0 as usize].is_some()
    }

    fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        match (self.interval[a.0 as usize], self.interval[b.0 as usize]) {
            (Some((a_in, a_out)), Some((b_in, b_out))) => a_in <= b_in && b_out <= a_out,
            _ => false,
        }
    }
}

/// `` `%7 = add` in block %4 ``.
fn at(c: &Checker, id: InstId, block: usize) -> String {
    format!("{} in block {}", c.inst_text(id), c.block_text(block))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The interval numbering answers exactly as the dominator tree's own
    /// walk up the idom chain, for every pair of blocks of every corpus function.
    #[test]
    fn dominance_intervals_agree_with_the_dominator_tree() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ll");
        let mut pairs = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let module = crate::ir::parse::parse_module(&text, "corpus.ll").unwrap();
            for f in module.functions.iter().filter(|f| !f.is_declaration()) {
                let tree = DomTree::compute(f);
                let fast = Dominance::new(f.blocks.len(), &tree);
                for a in 0..f.blocks.len() as u32 {
                    for b in 0..f.blocks.len() as u32 {
                        let (a, b) = (BlockId(a), BlockId(b));
                        assert_eq!(
                            fast.dominates(a, b),
                            tree.dominates(a, b),
                            "{path:?} @{}",
                            f.name
                        );
                        pairs += 1;
                    }
                }
            }
        }
        assert!(pairs > 1000, "only {pairs} block pairs compared");
    }
}
