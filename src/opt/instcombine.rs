//! instcombine: local peepholes: constant folding, algebraic identities,
//! canonical forms (constants on the right, `sub x, c` as `add x, -c`),
//! strength reduction of multiplications and divisions by powers of two,
//! cast chains, trivial selects, compares and phis, fusing chains of
//! operations with constants, and loads of scalar constant globals (never of
//! an interposable one: weak, linkonce, common or extern_weak).
//!
//! In: any function. Out: the same function with simpler instructions; the
//! replaced ones are left unused for DCE. Debug-info rules:
//! - an instruction rewritten in place (`add x, x` → `shl x, 1`,
//!   `sext (zext x)` → `zext x`, `mul x, 8` → `shl x, 3`) keeps its
//!   location (preserve);
//! - an instruction replaced by an existing value is RAUW'd: its debug uses
//!   follow the value; when the value is narrower (`trunc (zext x)` → `x`)
//!   they get `DW_OP_LLVM_convert` back to the old width
//!   ([`replace_all_debug_uses_with`](super::debug_update::replace_all_debug_uses_with));
//! - a fused operation replacing two (`add (add x, 1), 2` → `add x, 3`)
//!   gets the merge of both locations
//!   ([`merge_locations`]).

use crate::ir::cfg::DomTree;
use crate::ir::value::{sign_extend, zero_extend};
use crate::ir::{
    ArithFlags, BinOp, CastOp, Constant, Function, GlobalRef, ICmpPred, InstId, InstKind, Type,
    Value,
};

use super::debug_update::merge_locations;
use super::edit::{inst_blocks, remove_insts, UseIndex};
use super::PassCx;

/// What a peephole decided for one instruction.
enum Action {
    /// Replace every use by this value; the instruction goes.
    Replace(Value),
    /// The instruction was rewritten in place.
    Rewritten,
}

/// Runs instcombine on one function to a fixed point (bounded).
pub fn run(cx: &mut PassCx, function: &mut Function) -> bool {
    let mut changed = false;
    // No peephole changes a terminator, so the dominator tree stays right
    // for every round; only the phi peephole asks for it.
    let mut dom = None;
    for _ in 0..8 {
        let mut round = false;
        let blocks = inst_blocks(function);
        let mut dead = vec![false; function.insts.len()];
        let placed: Vec<InstId> = function
            .blocks
            .iter()
            .flat_map(|b| b.insts.iter().copied())
            .collect();
        // Uses are indexed once a round and kept up to date by each
        // combine: rescanning the function after each made the pass
        // quadratic on large functions.
        let mut uses = UseIndex::build(function);
        for id in placed {
            let before = UseIndex::operands_of(function, id);
            let Some(action) = combine(cx, function, id, &mut dom, &blocks, &uses.counts) else {
                continue;
            };
            round = true;
            match action {
                Action::Replace(value) => {
                    uses.replace(&mut cx.module.debug, function, id, &value);
                    dead[id.0 as usize] = true;
                }
                Action::Rewritten => uses.rewritten(function, id, &before),
            }
        }
        remove_insts(function, &dead);
        if !round {
            break;
        }
        changed = true;
    }
    changed
}

/// Bits of an integer type.
fn int_bits(ty: &Type) -> Option<u32> {
    match ty {
        Type::Int(bits) => Some(*bits),
        _ => None,
    }
}

/// The integer constant's sign-extended value.
fn const_int(value: &Value) -> Option<i128> {
    match value {
        Value::Const(Constant::Int { value, .. }) => Some(*value),
        _ => None,
    }
}

/// `log2(c)` when `c` (read unsigned at `bits`) is a power of two.
fn power_of_two(c: i128, bits: u32) -> Option<u32> {
    let u = zero_extend(c, bits);
    (u != 0 && u & (u - 1) == 0).then(|| u.trailing_zeros())
}

/// Folds `a op b` at `bits`; `None` where the result is poison or UB.
fn fold_binary(op: BinOp, bits: u32, a: i128, b: i128) -> Option<i128> {
    let (ua, ub) = (zero_extend(a, bits), zero_extend(b, bits));
    let v: i128 = match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => (ua.wrapping_mul(ub)) as i128,
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl if ub < bits as u128 => ((ua << ub) & mask(bits)) as i128,
        BinOp::LShr if ub < bits as u128 => (ua >> ub) as i128,
        BinOp::AShr if ub < bits as u128 => a >> ub,
        BinOp::UDiv if ub != 0 => (ua / ub) as i128,
        BinOp::URem if ub != 0 => (ua % ub) as i128,
        BinOp::SDiv if b != 0 && !(b == -1 && a == sign_extend(1 << (bits - 1), bits)) => a / b,
        BinOp::SRem if b != 0 && !(b == -1 && a == sign_extend(1 << (bits - 1), bits)) => a % b,
        _ => return None,
    };
    Some(sign_extend(v, bits))
}

/// All ones in the low `bits` bits.
fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// Evaluates an integer comparison.
fn fold_icmp(pred: ICmpPred, bits: u32, a: i128, b: i128) -> bool {
    let (ua, ub) = (zero_extend(a, bits), zero_extend(b, bits));
    match pred {
        ICmpPred::Eq => a == b,
        ICmpPred::Ne => a != b,
        ICmpPred::Ugt => ua > ub,
        ICmpPred::Uge => ua >= ub,
        ICmpPred::Ult => ua < ub,
        ICmpPred::Ule => ua <= ub,
        ICmpPred::Sgt => a > b,
        ICmpPred::Sge => a >= b,
        ICmpPred::Slt => a < b,
        ICmpPred::Sle => a <= b,
    }
}

/// The predicate with its operands swapped.
fn swapped(pred: ICmpPred) -> ICmpPred {
    match pred {
        ICmpPred::Ugt => ICmpPred::Ult,
        ICmpPred::Uge => ICmpPred::Ule,
        ICmpPred::Ult => ICmpPred::Ugt,
        ICmpPred::Ule => ICmpPred::Uge,
        ICmpPred::Sgt => ICmpPred::Slt,
        ICmpPred::Sge => ICmpPred::Sle,
        ICmpPred::Slt => ICmpPred::Sgt,
        ICmpPred::Sle => ICmpPred::Sge,
        other => other,
    }
}

/// Whether `op` is commutative.
fn commutative(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor
    )
}

/// What the peepholes read of the instruction they combine (a copy: they
/// edit the function while they look at it).
struct Combined {
    kind: InstKind,
    ty: Type,
    dbg: Option<crate::ir::LocId>,
}

/// Tries every peephole on instruction `id`.
fn combine(
    cx: &mut PassCx,
    function: &mut Function,
    id: InstId,
    dom: &mut Option<DomTree>,
    blocks: &[Option<crate::ir::BlockId>],
    uses: &[u32],
) -> Option<Action> {
    let inst = function.inst(id);
    if !matches!(
        inst.kind,
        InstKind::Binary { .. }
            | InstKind::ICmp { .. }
            | InstKind::Cast { .. }
            | InstKind::Select { .. }
            | InstKind::Phi { .. }
            | InstKind::Gep { .. }
            | InstKind::Load { .. }
    ) {
        return None;
    }
    let inst = Combined {
        kind: inst.kind.clone(),
        ty: inst.ty.clone(),
        dbg: inst.dbg,
    };
    let int = |bits: u32, v: i128| Value::int(bits, v);
    match &inst.kind {
        InstKind::Binary {
            op,
            flags,
            lhs,
            rhs,
        } => {
            let bits = int_bits(&inst.ty)?;
            let (op, flags) = (*op, *flags);
            if let (Some(a), Some(b)) = (const_int(lhs), const_int(rhs)) {
                return fold_binary(op, bits, a, b).map(|v| Action::Replace(int(bits, v)));
            }
            if commutative(op) && const_int(lhs).is_some() {
                set_binary(function, id, op, flags, rhs.clone(), lhs.clone());
                return Some(Action::Rewritten);
            }
            if lhs == rhs {
                return match op {
                    BinOp::Sub | BinOp::Xor => Some(Action::Replace(int(bits, 0))),
                    BinOp::And | BinOp::Or => Some(Action::Replace(lhs.clone())),
                    BinOp::Add => {
                        set_binary(function, id, BinOp::Shl, flags, lhs.clone(), int(bits, 1));
                        Some(Action::Rewritten)
                    }
                    _ => None,
                };
            }
            let c = const_int(rhs)?;
            let all_ones = sign_extend(-1, bits);
            match (op, c) {
                (
                    BinOp::Add
                    | BinOp::Sub
                    | BinOp::Or
                    | BinOp::Xor
                    | BinOp::Shl
                    | BinOp::LShr
                    | BinOp::AShr,
                    0,
                )
                | (BinOp::Mul | BinOp::SDiv | BinOp::UDiv, 1) => {
                    return Some(Action::Replace(lhs.clone()))
                }
                (BinOp::Mul | BinOp::And, 0) | (BinOp::URem | BinOp::SRem, 1) => {
                    return Some(Action::Replace(int(bits, 0)))
                }
                (BinOp::And, c) if c == all_ones => return Some(Action::Replace(lhs.clone())),
                (BinOp::Or, c) if c == all_ones => {
                    return Some(Action::Replace(int(bits, all_ones)))
                }
                _ => {}
            }
            let plain = ArithFlags::default();
            match op {
                BinOp::Sub if c != sign_extend(1 << (bits - 1), bits) => {
                    set_binary(function, id, BinOp::Add, plain, lhs.clone(), int(bits, -c));
                    return Some(Action::Rewritten);
                }
                BinOp::Mul => {
                    if let Some(k) = power_of_two(c, bits) {
                        let flags = ArithFlags {
                            nuw: flags.nuw,
                            ..plain
                        };
                        set_binary(
                            function,
                            id,
                            BinOp::Shl,
                            flags,
                            lhs.clone(),
                            int(bits, k as i128),
                        );
                        return Some(Action::Rewritten);
                    }
                }
                BinOp::UDiv => {
                    if let Some(k) = power_of_two(c, bits) {
                        let flags = ArithFlags {
                            exact: flags.exact,
                            ..plain
                        };
                        set_binary(
                            function,
                            id,
                            BinOp::LShr,
                            flags,
                            lhs.clone(),
                            int(bits, k as i128),
                        );
                        return Some(Action::Rewritten);
                    }
                }
                BinOp::URem if power_of_two(c, bits).is_some() => {
                    let m = sign_extend(zero_extend(c, bits) as i128 - 1, bits);
                    set_binary(function, id, BinOp::And, plain, lhs.clone(), int(bits, m));
                    return Some(Action::Rewritten);
                }
                _ => {}
            }
            // Fuse `(x op c1) op c2` into `x op (c1 op c2)` for associative ops.
            if matches!(
                op,
                BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor
            ) {
                let inner_id = lhs.as_inst()?;
                let inner = function.inst(inner_id).clone();
                if let InstKind::Binary {
                    op: inner_op,
                    lhs: x,
                    rhs: inner_rhs,
                    ..
                } = &inner.kind
                {
                    let c1 = const_int(inner_rhs)?;
                    if *inner_op == op && uses[inner_id.0 as usize] == 1 && const_int(x).is_none() {
                        let folded = fold_binary(op, bits, c1, c)?;
                        let loc = merge_locations(&mut cx.module.debug, inner.dbg, inst.dbg);
                        set_binary(function, id, op, plain, x.clone(), int(bits, folded));
                        function.inst_mut(id).dbg = loc;
                        return Some(Action::Rewritten);
                    }
                }
            }
            None
        }
        InstKind::ICmp { pred, lhs, rhs } => {
            let bits = match function.value_type(lhs) {
                Type::Int(b) => b,
                Type::Ptr => 64,
                _ => return None,
            };
            if let (Some(a), Some(b)) = (const_int(lhs), const_int(rhs)) {
                return Some(Action::Replace(int(
                    1,
                    -(fold_icmp(*pred, bits, a, b) as i128),
                )));
            }
            if const_int(lhs).is_some() && const_int(rhs).is_none() {
                function.inst_mut(id).kind = InstKind::ICmp {
                    pred: swapped(*pred),
                    lhs: rhs.clone(),
                    rhs: lhs.clone(),
                };
                return Some(Action::Rewritten);
            }
            if lhs == rhs {
                let result = matches!(
                    pred,
                    ICmpPred::Eq | ICmpPred::Uge | ICmpPred::Ule | ICmpPred::Sge | ICmpPred::Sle
                );
                return Some(Action::Replace(int(1, -(result as i128))));
            }
            // `icmp ne (zext i1 x), 0` → x.
            if *pred == ICmpPred::Ne && const_int(rhs) == Some(0) {
                let zext = lhs.as_inst()?;
                if let InstKind::Cast {
                    op: CastOp::ZExt,
                    value,
                    ..
                } = &function.inst(zext).kind
                {
                    if function.value_type(value) == Type::Int(1) {
                        return Some(Action::Replace(value.clone()));
                    }
                }
            }
            None
        }
        InstKind::Cast { op, value, flags } => {
            let to_bits = int_bits(&inst.ty)?;
            let from_ty = function.value_type(value);
            if let Some(c) = const_int(value) {
                let from_bits = int_bits(&from_ty)?;
                let v = match op {
                    CastOp::ZExt => zero_extend(c, from_bits) as i128,
                    CastOp::SExt | CastOp::Trunc => c,
                    _ => return None,
                };
                return Some(Action::Replace(int(to_bits, v)));
            }
            let inner_id = value.as_inst()?;
            let InstKind::Cast {
                op: inner_op,
                value: x,
                flags: inner_flags,
            } = function.inst(inner_id).kind.clone()
            else {
                return None;
            };
            let x_ty = function.value_type(&x);
            let x_bits = int_bits(&x_ty)?;
            let new_cast = |function: &mut Function, op: CastOp, flags: ArithFlags| {
                function.inst_mut(id).kind = InstKind::Cast {
                    op,
                    flags,
                    value: x.clone(),
                };
                Some(Action::Rewritten)
            };
            match (op, inner_op) {
                (CastOp::ZExt, CastOp::ZExt) | (CastOp::SExt, CastOp::SExt) => {
                    new_cast(function, *op, inner_flags)
                }
                // sext of a zero-extended value: its sign bit is 0.
                (CastOp::SExt, CastOp::ZExt) => new_cast(function, CastOp::ZExt, inner_flags),
                (CastOp::Trunc, CastOp::Trunc) => new_cast(function, CastOp::Trunc, *flags),
                (CastOp::Trunc, CastOp::ZExt | CastOp::SExt) => {
                    if x_bits == to_bits {
                        Some(Action::Replace(x))
                    } else if x_bits > to_bits {
                        new_cast(function, CastOp::Trunc, ArithFlags::default())
                    } else {
                        new_cast(function, inner_op, inner_flags)
                    }
                }
                _ => None,
            }
        }
        InstKind::Select {
            cond,
            if_true,
            if_false,
        } => {
            if let Some(c) = const_int(cond) {
                return Some(Action::Replace(if c != 0 {
                    if_true.clone()
                } else {
                    if_false.clone()
                }));
            }
            if if_true == if_false {
                return Some(Action::Replace(if_true.clone()));
            }
            if inst.ty == Type::Int(1)
                && const_int(if_true) == Some(-1)
                && const_int(if_false) == Some(0)
            {
                return Some(Action::Replace(cond.clone()));
            }
            None
        }
        InstKind::Phi { incoming } => {
            let this = Value::Inst(id);
            let mut values = incoming.iter().map(|(v, _)| v).filter(|v| **v != this);
            let first = values.next()?.clone();
            if values.any(|v| *v != first) {
                return None;
            }
            let phi_block = blocks[id.0 as usize]?;
            let dominates = match &first {
                Value::Inst(def) => blocks[def.0 as usize].is_some_and(|b| {
                    b != phi_block
                        && dom
                            .get_or_insert_with(|| DomTree::compute(function))
                            .dominates(b, phi_block)
                }),
                Value::Const(Constant::Undef(_) | Constant::Poison(_)) => false,
                _ => true,
            };
            dominates.then_some(Action::Replace(first))
        }
        InstKind::Gep { base, indices, .. } => {
            (indices.iter().all(|i| const_int(i) == Some(0))).then(|| Action::Replace(base.clone()))
        }
        InstKind::Load {
            ptr: Value::Const(Constant::Global(GlobalRef::Var(global))),
            volatile: false,
            atomic: None,
            ..
        } => {
            // A load of a whole constant global is its initializer, unless
            // the definition may be replaced at link time (weak, linkonce,
            // common, extern_weak): another object's may win.
            let global = cx.module.global(*global);
            let init = global.initializer.as_ref()?;
            let scalar = matches!(init, Constant::Int { .. } | Constant::Float { .. });
            (global.constant && !global.linkage.is_weak() && scalar && init.ty() == inst.ty)
                .then(|| Action::Replace(Value::Const(init.clone())))
        }
        _ => None,
    }
}

/// Rewrites instruction `id` in place as `op flags lhs, rhs` (same type and location).
fn set_binary(
    function: &mut Function,
    id: InstId,
    op: BinOp,
    flags: ArithFlags,
    lhs: Value,
    rhs: Value,
) {
    function.inst_mut(id).kind = InstKind::Binary {
        op,
        flags,
        lhs,
        rhs,
    };
}
