//! inline: replaces a direct call of a small function defined in the module
//! (at most [`MAX_CALLEE_INSTS`] instructions, no allocas, not varargs, not
//! the caller itself, no exception handling under another personality, not `noinline` unless clang -O0 marked every function
//! so) by a copy of its body. The caller's block is split at
//! the call; the copy's returns branch to the rest, through a phi when it
//! returns a value from several places. Callees are the bodies as they were
//! before this pass ran, so one run inlines one level.
//!
//! In: a function and the module's bodies. Out: the function with those
//! calls inlined. Debug-info rules: every copied location keeps its line and
//! scope and gets the call's location appended to its `inlinedAt` chain (so
//! the scope builder writes DW_TAG_inlined_subroutine, nested for code that
//! was already inlined); copied debug records get the same treatment and keep
//! their variables; copied stores and `#dbg_assign`s get fresh DIAssignIDs
//! (an inlined store is a new assignment), and a copied store that writes
//! an alloca of the caller whose variables carry markers gets a DIAssignID
//! and markers of those variables (LLVM's rule for inlined stores: an
//! assignment through a pointer argument is an assignment to the caller's
//! variable). The call's own debug uses follow
//! its result (RAUW). A call without a location is not inlined into a
//! function with debug info (there would be no `inlinedAt` to give).

use crate::ir::hash::FxHashMap;

use crate::ir::{
    BlockId, Function, Inst, InstId, InstKind, Linkage, LocId, MdId, MdNode, Type, Value,
};

use super::debug_update::replace_all_uses_with;
use super::edit::phi_count;
use super::PassCx;

/// The largest callee (in instructions) that is copied into its callers.
pub const MAX_CALLEE_INSTS: usize = 40;

/// Runs the inliner on one function; true when a call was inlined.
pub fn run(cx: &mut PassCx, function: &mut Function) -> bool {
    // Only the calls present before this run: a copied body's own calls wait
    // for the next run, so mutual recursion cannot make this loop forever.
    let original: Vec<bool> = (0..function.insts.len()).map(|_| true).collect();
    let mut changed = false;
    // clang -O0 marks every function `noinline` (its own -O0 default, not
    // the programmer's): when all bodies carry it, it says nothing about
    // any one of them. Otherwise it is honoured, as LLVM's inliner does.
    let honour_noinline = !cx
        .bodies
        .iter()
        .filter(|b| !b.is_declaration())
        .all(|b| super::has_function_attr(cx.module, b, "noinline"));
    while let Some((block, index, callee)) = find_call(cx, function, &original, honour_noinline) {
        inline_call(cx, function, block, index, callee);
        changed = true;
    }
    changed
}

/// The first original call (in layout order) that can be inlined: its
/// block, index and callee index in [`PassCx::bodies`].
fn find_call(
    cx: &PassCx,
    function: &Function,
    original: &[bool],
    honour_noinline: bool,
) -> Option<(BlockId, usize, usize)> {
    for (b, block) in function.blocks.iter().enumerate() {
        for (i, &id) in block.insts.iter().enumerate() {
            if !original.get(id.0 as usize).copied().unwrap_or(false) {
                continue;
            }
            let inst = function.inst(id);
            let InstKind::Call { callee, .. } = &inst.kind else {
                continue;
            };
            let Value::Const(crate::ir::Constant::Global(crate::ir::GlobalRef::Func(f))) = callee
            else {
                continue;
            };
            let Some(body) = cx.bodies.get(f.0 as usize) else {
                continue;
            };
            let size: usize = body.blocks.iter().map(|b| b.insts.len()).sum();
            let has_alloca = body
                .blocks
                .iter()
                .flat_map(|b| &b.insts)
                .any(|&i| matches!(body.inst(i).kind, InstKind::Alloca { .. }));
            let locatable = function.subprogram.is_none() || inst.dbg.is_some();
            // A weak, linkonce or common body may be replaced at link time
            // by another definition (LLVM's "interposable"): never inline it.
            let interposable = matches!(
                body.linkage,
                Linkage::Weak | Linkage::LinkOnce | Linkage::Common | Linkage::ExternWeak
            );
            // Exception handling is copied only under the same personality.
            let handles_exceptions = body.blocks.iter().flat_map(|b| &b.insts).any(|&i| {
                matches!(
                    body.inst(i).kind,
                    InstKind::Invoke { .. } | InstKind::LandingPad { .. } | InstKind::Resume { .. }
                )
            });
            let foreign_personality =
                handles_exceptions && body.attrs.personality != function.attrs.personality;
            if body.is_declaration()
                || interposable
                || foreign_personality
                || (honour_noinline && super::has_function_attr(cx.module, body, "noinline"))
                || body.varargs
                || body.name == function.name
                || size > MAX_CALLEE_INSTS
                || has_alloca
                || !locatable
                || body.params.len() != call_arg_count(inst)
            {
                continue;
            }
            return Some((BlockId(b as u32), i, f.0 as usize));
        }
    }
    None
}

/// The number of arguments of a call.
fn call_arg_count(inst: &Inst) -> usize {
    match &inst.kind {
        InstKind::Call { args, .. } => args.len(),
        _ => 0,
    }
}

/// `loc` as seen from the call site `call_loc`: the same line and scope,
/// with `call_loc` at the end of its `inlinedAt` chain.
fn inlined_location(cx: &mut PassCx, loc: LocId, call_loc: LocId) -> LocId {
    let mut location = cx.module.debug.location(loc).clone();
    location.inlined_at = Some(match location.inlined_at {
        None => call_loc,
        Some(outer) => inlined_location(cx, outer, call_loc),
    });
    location.distinct = false;
    cx.module.debug.intern_location(location)
}

/// Copies callee `callee` into `function` in place of the call at `index` of `block`.
fn inline_call(
    cx: &mut PassCx,
    function: &mut Function,
    block: BlockId,
    index: usize,
    callee: usize,
) {
    let body = cx.bodies[callee].clone();
    let call = function.blocks[block.0 as usize].insts[index];
    let call_inst = function.inst(call).clone();
    let InstKind::Call { args, .. } = &call_inst.kind else {
        return;
    };
    let keep_debug = function.subprogram.is_some() && body.subprogram.is_some();
    let call_loc = call_inst.dbg;

    // Split: the instructions after the call move to a new block `rest`.
    let rest = BlockId(function.blocks.len() as u32);
    let tail: Vec<InstId> = function.blocks[block.0 as usize].insts.split_off(index + 1);
    function.blocks[block.0 as usize].insts.pop();
    function.blocks.push(crate::ir::Block {
        name: None,
        insts: tail,
    });
    // Phis of the old successors now come from `rest`.
    let succs = function
        .terminator(rest)
        .map(|t| t.successors())
        .unwrap_or_default();
    for s in succs {
        let phis: Vec<InstId> = function.block(s).insts[..phi_count(function, s)].to_vec();
        for phi in phis {
            if let InstKind::Phi { incoming } = &mut function.inst_mut(phi).kind {
                for (_, from) in incoming.iter_mut() {
                    if *from == block {
                        *from = rest;
                    }
                }
            }
        }
    }

    // Copy the callee's blocks.
    let first_new = function.blocks.len() as u32;
    let block_map = |b: BlockId| BlockId(first_new + b.0);
    let mut value_map: FxHashMap<InstId, InstId> = FxHashMap::default();
    for old_block in &body.blocks {
        let mut insts = Vec::with_capacity(old_block.insts.len());
        for &old in &old_block.insts {
            let new = function.add_inst(Inst::new(InstKind::Unreachable, Type::Void));
            value_map.insert(old, new);
            insts.push(new);
        }
        function.blocks.push(crate::ir::Block {
            name: old_block.name.clone(),
            insts,
        });
    }
    let map_value = |v: &Value| -> Value {
        match v {
            Value::Arg(n) => args[*n as usize].value.clone(),
            Value::Inst(id) => Value::Inst(value_map[id]),
            other => other.clone(),
        }
    };
    let mut new_assign_ids: FxHashMap<MdId, MdId> = FxHashMap::default();
    let mut fresh_id = |cx: &mut PassCx, old: MdId| {
        *new_assign_ids
            .entry(old)
            .or_insert_with(|| cx.module.debug.add_node(true, MdNode::AssignId))
    };
    let mut returns: Vec<(Option<Value>, BlockId, InstId)> = Vec::new();
    for (b, old_block) in body.blocks.iter().enumerate() {
        for &old in &old_block.insts {
            let mut inst = body.inst(old).clone();
            for operand in inst.operands_mut() {
                *operand = map_value(operand);
            }
            match &mut inst.kind {
                InstKind::Br { dest } => *dest = block_map(*dest),
                InstKind::CondBr {
                    if_true, if_false, ..
                } => {
                    *if_true = block_map(*if_true);
                    *if_false = block_map(*if_false);
                }
                InstKind::Switch { default, cases, .. } => {
                    *default = block_map(*default);
                    cases.iter_mut().for_each(|(_, d)| *d = block_map(*d));
                }
                InstKind::Invoke { normal, unwind, .. } => {
                    *normal = block_map(*normal);
                    *unwind = block_map(*unwind);
                }
                InstKind::Phi { incoming } => incoming
                    .iter_mut()
                    .for_each(|(_, from)| *from = block_map(*from)),
                _ => {}
            }
            if keep_debug {
                let call_loc = call_loc.expect("checked by find_call");
                inst.dbg = inst.dbg.map(|l| inlined_location(cx, l, call_loc));
                for record in &mut inst.records {
                    record.loc = inlined_location(cx, record.loc, call_loc);
                    for value in record.values_mut() {
                        *value = map_value(value);
                    }
                    if let Some(assign) = &mut record.assign {
                        assign.id = fresh_id(cx, assign.id);
                    }
                }
                inst.assign_id = inst.assign_id.map(|id| fresh_id(cx, id));
            } else {
                inst.dbg = None;
                inst.records.clear();
                inst.assign_id = None;
            }
            let new = value_map[&old];
            if let InstKind::Ret { value } = &inst.kind {
                returns.push((value.clone(), BlockId(first_new + b as u32), new));
                let records = std::mem::take(&mut inst.records);
                inst = Inst::new(InstKind::Br { dest: rest }, Type::Void);
                inst.records = records;
                inst.dbg = call_loc;
            }
            *function.inst_mut(new) = inst;
        }
    }

    // The call's block jumps into the copy; the call's records ride on that jump.
    let mut jump = Inst::new(
        InstKind::Br {
            dest: BlockId(first_new),
        },
        Type::Void,
    );
    jump.dbg = call_loc;
    jump.records = call_inst.records.clone();
    let jump = function.add_inst(jump);
    function.blocks[block.0 as usize].insts.push(jump);
    if keep_debug {
        let mut copied: Vec<InstId> = value_map.values().copied().collect();
        copied.sort_unstable();
        super::declare_to_assign::track_inlined_stores(cx, function, &copied);
    }

    // The call's result: the returned value, through a phi when there are several.
    if !call_inst.ty.is_void() {
        let result = match returns.as_slice() {
            [(Some(value), _, _)] => value.clone(),
            _ => {
                let incoming = returns
                    .iter()
                    .map(|(v, from, _)| {
                        (
                            v.clone()
                                .unwrap_or(Value::Const(crate::ir::Constant::Poison(
                                    call_inst.ty.clone(),
                                ))),
                            *from,
                        )
                    })
                    .collect();
                let mut phi = Inst::new(InstKind::Phi { incoming }, call_inst.ty.clone());
                phi.name = call_inst.name.clone();
                let phi = function.add_inst(phi);
                function.blocks[rest.0 as usize].insts.insert(0, phi);
                Value::Inst(phi)
            }
        };
        replace_all_uses_with(&mut cx.module.debug, function, call, &result);
    }
}
