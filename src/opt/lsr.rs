//! lsr: loop strength reduction of addresses. A `getelementptr T, base, idx`
//! in a loop, with `base` invariant and `idx` an affine function of a basic
//! induction variable computed in the loop (`a[i * n + k]`: adds, subs,
//! multiplications by invariants, shifts by constants, `sext` of such
//! `nsw` arithmetic), becomes a pointer induction variable: a header phi
//! that starts at the address of the first iteration (computed in the
//! preheader) and advances by a constant or invariant step in the latch.
//! The index arithmetic of every iteration is then dead, so the 400x400
//! matmul's inner loop no longer recomputes its row address.
//!
//! In: any function (best after loop-rotate and licm, so loops have a
//! preheader and a single latch, and invariants are outside them). Out: the
//! same function with those addresses replaced; the old arithmetic is left
//! for DCE. Exactness: a `sext` is only looked through when everything under
//! it carries `nsw` (the induction variable's increment too), so the 64-bit
//! step is the exact difference of consecutive addresses; in 64-bit
//! arithmetic wrapping is the same modulo 2^64 as the pointer's.
//!
//! Before that, in every loop with one latch, a compare of a basic
//! induction variable with a constant made after the increment in the
//! header compares the increment instead (LLVM's post-increment uses), so
//! the old value dies at the increment ([`compare_incremented`]).
//!
//! Debug-info rule: replace, then salvage: the address keeps every debug
//! use through RAUW (the pointer phi has the address's value in every
//! iteration); the induction variable itself is kept, and the dead index
//! arithmetic is salvaged into `DW_OP` arithmetic over its operands by DCE
//! before it is deleted. Code made in the preheader and the header phi is
//! moved code (drop: line 0 in the address's scope); the increment in the
//! latch advances the address and keeps its location (preserve).

use crate::ir::{
    ArithFlags, BinOp, BlockId, CastOp, Function, GepFlags, ICmpPred, Inst, InstId, InstKind,
    LocId, Type, Value,
};

use super::debug_update::dropped_location;
use super::edit::{inst_blocks, use_counts};
use super::loops::{find_loop_bodies, find_loops, Loop, LoopBody};
use super::PassCx;

/// A basic induction variable: a header phi stepping by a constant.
struct Induction {
    phi: InstId,
    start: Value,
    step: i128,
    /// The increment carries `nsw`.
    nsw: bool,
}

/// What an index expression is, relative to the loop.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// The same in every iteration (defined outside the loop, or a constant).
    Invariant,
    /// Affine in induction variable number `iv` (and computed in the loop).
    Linear { iv: usize },
}

/// A step value being built in the preheader: folded while constant.
#[derive(Clone)]
enum Step {
    Const(i128),
    Value(Value),
}

/// Runs LSR on one function; true when a compare moved to an increment or
/// an address became a pointer induction variable.
pub fn run(cx: &mut PassCx, function: &mut Function) -> bool {
    let mut changed = false;
    for lp in find_loop_bodies(function) {
        changed |= compare_incremented(function, &lp);
    }
    let mut loops = find_loops(function);
    loops.sort_by_key(|l| l.size);
    for lp in &loops {
        changed |= reduce_loop(cx, function, lp);
    }
    changed
}

/// Strength-reduces the addresses of one loop.
fn reduce_loop(cx: &mut PassCx, function: &mut Function, lp: &Loop) -> bool {
    let [latch] = lp.latches.as_slice() else {
        return false;
    };
    let latch = *latch;
    let ivs = inductions(function, lp, latch);
    if ivs.is_empty() {
        return false;
    }
    let blocks = inst_blocks(function);
    let uses = use_counts(function);
    let mut candidates = Vec::new();
    for (b, block) in function.blocks.iter().enumerate() {
        if !lp.body[b] {
            continue;
        }
        for &id in &block.insts {
            let InstKind::Gep { base, indices, .. } = &function.inst(id).kind else {
                continue;
            };
            let [index] = indices.as_slice() else {
                continue;
            };
            let invariant_base = match base {
                Value::Inst(d) => blocks[d.0 as usize].is_some_and(|b| !lp.contains(b)),
                _ => true,
            };
            if !invariant_base || function.value_type(index) != Type::I64 {
                continue;
            }
            // Only an index computed in the loop, used by this address alone,
            // and not the induction variable itself.
            let Some(top) = index.as_inst() else {
                continue;
            };
            if uses[top.0 as usize] != 1 || ivs.iter().any(|iv| iv.phi == top) {
                continue;
            }
            let analysis = Analysis {
                function,
                blocks: &blocks,
                lp,
                ivs: &ivs,
            };
            if let Some(Shape::Linear { iv }) = analysis.shape(index, false) {
                candidates.push((id, iv));
            }
        }
    }
    let in_loop: Vec<bool> = blocks
        .iter()
        .map(|b| b.is_some_and(|b| lp.contains(b)))
        .collect();
    let mut changed = false;
    for (gep, iv) in candidates {
        changed |= reduce(cx, function, lp, latch, &ivs[iv], &in_loop, gep);
    }
    changed
}

/// Compares of an induction variable with a constant in the loop, made
/// after its increment in the header, compare the incremented value with
/// the constant moved by the step: `icmp sgt %i, 1` with `%i.next = add
/// nsw %i, -1` becomes `icmp sgt %i.next, 0`. The old value then dies at
/// the increment, so the phi and its increment share a register (or a
/// spill slot) instead of being copied into each other on the back edge.
/// Exact: equality holds modulo 2^n either way; a signed order only with
/// `nsw` and a constant that stays in range. Unsigned orders are left
/// alone. Any loop with one latch qualifies (no preheader needed).
/// Returns whether a compare changed.
fn compare_incremented(function: &mut Function, lp: &LoopBody) -> bool {
    let [latch] = lp.latches.as_slice() else {
        return false;
    };
    let header = &function.block(lp.header).insts;
    // (phi, increment, its position in the header, step, nsw)
    let mut ivs: Vec<(InstId, InstId, usize, i128, bool)> = Vec::new();
    for &id in header {
        let InstKind::Phi { incoming } = &function.inst(id).kind else {
            break;
        };
        let Some((Value::Inst(next), _)) = incoming.iter().find(|(_, b)| b == latch) else {
            continue;
        };
        let Some(at) = header.iter().position(|i| i == next) else {
            continue;
        };
        if let InstKind::Binary {
            op: BinOp::Add,
            flags,
            lhs: Value::Inst(p),
            rhs: Value::Const(c),
        } = &function.inst(*next).kind
        {
            if let (true, Some(step)) = (*p == id, c.sext_value()) {
                ivs.push((id, *next, at, step, flags.nsw));
            }
        }
    }
    let mut changed = false;
    for (phi, next, at, step, nsw) in ivs {
        let Type::Int(bits @ 2..=64) = function.inst(phi).ty else {
            continue;
        };
        let (min, max) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
        let compares: Vec<InstId> = function
            .blocks
            .iter()
            .enumerate()
            .filter(|&(b, _)| lp.body[b])
            .flat_map(|(b, block)| {
                let skip = if BlockId(b as u32) == lp.header {
                    at + 1
                } else {
                    0
                };
                block.insts[skip.min(block.insts.len())..].iter().copied()
            })
            .collect();
        for id in compares {
            let InstKind::ICmp { pred, lhs, rhs } = &function.inst(id).kind else {
                continue;
            };
            let (Value::Inst(x), Value::Const(c)) = (lhs, rhs) else {
                continue;
            };
            let Some(c) = c.sext_value().filter(|_| *x == phi) else {
                continue;
            };
            let moved = c + step;
            let exact = match pred {
                ICmpPred::Eq | ICmpPred::Ne => true,
                ICmpPred::Sgt | ICmpPred::Sge | ICmpPred::Slt | ICmpPred::Sle => {
                    nsw && (min..=max).contains(&moved)
                }
                _ => false,
            };
            if exact {
                let pred = *pred;
                function.inst_mut(id).kind = InstKind::ICmp {
                    pred,
                    lhs: Value::Inst(next),
                    rhs: Value::int(bits, moved),
                };
                changed = true;
            }
        }
    }
    changed
}

/// The loop's basic induction variables.
fn inductions(function: &Function, lp: &Loop, latch: BlockId) -> Vec<Induction> {
    let mut ivs = Vec::new();
    for &id in &function.block(lp.header).insts {
        let InstKind::Phi { incoming } = &function.inst(id).kind else {
            break;
        };
        if incoming.len() != 2 || !matches!(function.inst(id).ty, Type::Int(32 | 64)) {
            continue;
        }
        let start = incoming.iter().find(|(_, b)| *b == lp.preheader);
        let next = incoming.iter().find(|(_, b)| *b == latch);
        let (Some((start, _)), Some((Value::Inst(next), _))) = (start, next) else {
            continue;
        };
        let InstKind::Binary {
            op: BinOp::Add,
            flags,
            lhs,
            rhs,
        } = &function.inst(*next).kind
        else {
            continue;
        };
        let step = match (lhs, rhs) {
            (Value::Inst(p), Value::Const(c)) | (Value::Const(c), Value::Inst(p)) if *p == id => {
                c.sext_value()
            }
            _ => None,
        };
        if let Some(step) = step {
            ivs.push(Induction {
                phi: id,
                start: start.clone(),
                step,
                nsw: flags.nsw,
            });
        }
    }
    ivs
}

/// The shape analysis of index expressions of one loop.
struct Analysis<'a> {
    function: &'a Function,
    blocks: &'a [Option<BlockId>],
    lp: &'a Loop,
    ivs: &'a [Induction],
}

impl Analysis<'_> {
    /// The shape of `value`; `narrow` when it is under a `sext` (every
    /// operation must then carry `nsw`). `None`: not affine.
    fn shape(&self, value: &Value, narrow: bool) -> Option<Shape> {
        let id = match value {
            Value::Inst(id) => *id,
            Value::Const(c) => return c.sext_value().map(|_| Shape::Invariant),
            Value::Arg(_) => return Some(Shape::Invariant),
        };
        if self.blocks[id.0 as usize].is_some_and(|b| !self.lp.contains(b)) {
            return Some(Shape::Invariant);
        }
        if let Some(iv) = self.ivs.iter().position(|iv| iv.phi == id) {
            return (!narrow || self.ivs[iv].nsw).then_some(Shape::Linear { iv });
        }
        let inst = self.function.inst(id);
        if !matches!(inst.ty, Type::Int(32 | 64)) {
            return None;
        }
        match &inst.kind {
            InstKind::Binary {
                op,
                flags,
                lhs,
                rhs,
            } => {
                if narrow && !flags.nsw {
                    return None;
                }
                let (a, b) = (self.shape(lhs, narrow)?, self.shape(rhs, narrow)?);
                match (op, a, b) {
                    (BinOp::Add | BinOp::Sub, Shape::Linear { iv: x }, Shape::Linear { iv: y })
                        if x == y =>
                    {
                        Some(a)
                    }
                    (
                        BinOp::Add | BinOp::Sub | BinOp::Mul,
                        Shape::Linear { .. },
                        Shape::Invariant,
                    )
                    | (
                        BinOp::Add | BinOp::Sub | BinOp::Mul,
                        Shape::Invariant,
                        Shape::Linear { .. },
                    ) => Some(if a == Shape::Invariant { b } else { a }),
                    (BinOp::Shl, Shape::Linear { .. }, Shape::Invariant)
                        if matches!(rhs, Value::Const(_)) =>
                    {
                        Some(a)
                    }
                    _ => None,
                }
            }
            InstKind::Cast {
                op: CastOp::SExt,
                value,
                ..
            } if !narrow
                && inst.ty == Type::I64
                && self.function.value_type(value) == Type::Int(32) =>
            {
                self.shape(value, true)
            }
            _ => None,
        }
    }
}

/// Where new preheader code goes and the location it carries.
struct Builder<'a> {
    function: &'a mut Function,
    block: BlockId,
    dbg: Option<LocId>,
    /// Which instructions are placed in the loop, by [`InstId`].
    in_loop: &'a [bool],
}

impl Builder<'_> {
    /// Appends `inst` before the block's terminator and returns its value.
    fn push(&mut self, kind: InstKind, ty: Type) -> Value {
        let mut inst = Inst::new(kind, ty);
        inst.dbg = self.dbg;
        let id = self.function.add_inst(inst);
        let insts = &mut self.function.blocks[self.block.0 as usize].insts;
        insts.insert(insts.len() - 1, id);
        Value::Inst(id)
    }

    /// Whether `value` is computed in the loop (for an analysed index: it
    /// varies with the induction variable).
    fn varies(&self, value: &Value) -> bool {
        value
            .as_inst()
            .is_some_and(|id| self.in_loop[id.0 as usize])
    }

    /// `lhs op rhs` in 64 bits, folded when both are constants.
    fn binary(&mut self, op: BinOp, lhs: Step, rhs: Step) -> Step {
        match (op, &lhs, &rhs) {
            (BinOp::Add, Step::Const(a), Step::Const(b)) => Step::Const(a.wrapping_add(*b)),
            (BinOp::Sub, Step::Const(a), Step::Const(b)) => Step::Const(a.wrapping_sub(*b)),
            (BinOp::Mul, Step::Const(a), Step::Const(b)) => Step::Const(a.wrapping_mul(*b)),
            (BinOp::Shl, Step::Const(a), Step::Const(b)) if (0..64).contains(b) => {
                Step::Const(a.wrapping_shl(*b as u32))
            }
            (BinOp::Add, Step::Const(0), _) => rhs,
            (BinOp::Add | BinOp::Sub | BinOp::Shl, _, Step::Const(0)) => lhs,
            (BinOp::Mul, Step::Const(1), _) => rhs,
            (BinOp::Mul, _, Step::Const(1)) => lhs,
            (BinOp::Mul, Step::Const(0), _) | (BinOp::Mul, _, Step::Const(0)) => Step::Const(0),
            _ => {
                let lhs = self.value(lhs);
                let rhs = self.value(rhs);
                Step::Value(self.push(
                    InstKind::Binary {
                        op,
                        flags: ArithFlags::default(),
                        lhs,
                        rhs,
                    },
                    Type::I64,
                ))
            }
        }
    }

    /// A step as an `i64` operand.
    fn value(&self, step: Step) -> Value {
        match step {
            Step::Const(c) => Value::int(64, c),
            Step::Value(v) => v,
        }
    }

    /// An invariant as a 64-bit step operand (sign-extended from 32 bits).
    fn widen(&mut self, value: &Value) -> Step {
        if let Value::Const(c) = value {
            if let Some(v) = c.sext_value() {
                return Step::Const(v);
            }
        }
        if self.function.value_type(value) == Type::I64 {
            return Step::Value(value.clone());
        }
        Step::Value(self.push(
            InstKind::Cast {
                op: CastOp::SExt,
                flags: ArithFlags::default(),
                value: value.clone(),
            },
            Type::I64,
        ))
    }

    /// How much an analysed index `value` grows per iteration of induction
    /// `iv`, in 64 bits.
    fn step(&mut self, value: &Value, iv: &Induction) -> Step {
        if !self.varies(value) {
            return Step::Const(0);
        }
        let id = value.as_inst().unwrap();
        if id == iv.phi {
            return Step::Const(iv.step);
        }
        match self.function.inst(id).kind.clone() {
            InstKind::Binary { op, lhs, rhs, .. } => match op {
                BinOp::Add | BinOp::Sub => {
                    let a = self.step(&lhs, iv);
                    let b = self.step(&rhs, iv);
                    self.binary(op, a, b)
                }
                BinOp::Mul => {
                    let (linear, factor) = if self.varies(&lhs) {
                        (lhs, rhs)
                    } else {
                        (rhs, lhs)
                    };
                    let a = self.step(&linear, iv);
                    let f = self.widen(&factor);
                    self.binary(BinOp::Mul, a, f)
                }
                _ => {
                    let a = self.step(&lhs, iv);
                    let k = self.widen(&rhs);
                    self.binary(BinOp::Shl, a, k)
                }
            },
            InstKind::Cast { value, .. } => self.step(&value, iv),
            _ => Step::Const(0),
        }
    }

    /// An analysed index `value` in the first iteration: its arithmetic
    /// copied into the block with the induction variable at its start.
    fn start(&mut self, value: &Value, iv: &Induction) -> Value {
        if !self.varies(value) {
            return value.clone();
        }
        let id = value.as_inst().unwrap();
        if id == iv.phi {
            return iv.start.clone();
        }
        let original = self.function.inst(id).clone();
        let mut kind = original.kind;
        let operands: Vec<Value> = match &kind {
            InstKind::Binary { lhs, rhs, .. } => vec![lhs.clone(), rhs.clone()],
            InstKind::Cast { value, .. } => vec![value.clone()],
            _ => return value.clone(),
        };
        let mapped: Vec<Value> = operands.iter().map(|v| self.start(v, iv)).collect();
        if let Some(folded) = fold_identity(&kind, &mapped, &original.ty) {
            return folded;
        }
        match &mut kind {
            InstKind::Binary { lhs, rhs, .. } => {
                *lhs = mapped[0].clone();
                *rhs = mapped[1].clone();
            }
            InstKind::Cast { value, .. } => *value = mapped[0].clone(),
            _ => {}
        }
        self.push(kind, original.ty)
    }
}

/// `x + 0`, `0 + x`, `x - 0`, `x * 1`, `1 * x` are `x`; `x * 0` is 0: the
/// first iteration's index usually starts at 0.
fn fold_identity(kind: &InstKind, operands: &[Value], ty: &Type) -> Option<Value> {
    let InstKind::Binary { op, .. } = kind else {
        return None;
    };
    let constant = |v: &Value| match v {
        Value::Const(c) => c.sext_value(),
        _ => None,
    };
    let (a, b) = (&operands[0], &operands[1]);
    match (op, constant(a), constant(b)) {
        (BinOp::Add | BinOp::Sub | BinOp::Shl, _, Some(0)) | (BinOp::Mul, _, Some(1)) => {
            Some(a.clone())
        }
        (BinOp::Add, Some(0), _) | (BinOp::Mul, Some(1), _) => Some(b.clone()),
        (BinOp::Mul, Some(0), _) | (BinOp::Mul, _, Some(0)) => Some(Value::int(ty.int_bits()?, 0)),
        _ => None,
    }
}

/// Makes the address `gep` (affine in induction `iv`) a pointer induction
/// variable of the loop.
fn reduce(
    cx: &mut PassCx,
    function: &mut Function,
    lp: &Loop,
    latch: BlockId,
    iv: &Induction,
    in_loop: &[bool],
    gep: InstId,
) -> bool {
    let InstKind::Gep {
        source,
        base,
        indices,
        ..
    } = function.inst(gep).kind.clone()
    else {
        return false;
    };
    let dbg = function.inst(gep).dbg;
    let moved = dropped_location(cx.module, dbg);
    let mut builder = Builder {
        function,
        block: lp.preheader,
        dbg: moved,
        in_loop,
    };
    let step = builder.step(&indices[0], iv);
    if matches!(step, Step::Const(0)) {
        return false;
    }
    let step = builder.value(step);
    let first = builder.start(&indices[0], iv);
    let start = builder.push(
        InstKind::Gep {
            flags: GepFlags::default(),
            source: source.clone(),
            base,
            indices: vec![first],
        },
        Type::Ptr,
    );
    let mut phi = Inst::new(InstKind::Phi { incoming: vec![] }, Type::Ptr);
    phi.dbg = moved;
    let phi = function.add_inst(phi);
    function.blocks[lp.header.0 as usize].insts.insert(0, phi);
    let mut next = Inst::new(
        InstKind::Gep {
            flags: GepFlags::default(),
            source,
            base: Value::Inst(phi),
            indices: vec![step],
        },
        Type::Ptr,
    );
    next.dbg = dbg;
    let next = function.add_inst(next);
    let latch_insts = &mut function.blocks[latch.0 as usize].insts;
    latch_insts.insert(latch_insts.len() - 1, next);
    function.inst_mut(phi).kind = InstKind::Phi {
        incoming: vec![(start, lp.preheader), (Value::Inst(next), latch)],
    };
    function.replace_all_uses(&Value::Inst(gep), &Value::Inst(phi));
    true
}
