//! LiveDebugValues: variable locations carried across blocks and through
//! copies, spills and restores, after register allocation.
//!
//! In: a MIR function over physical registers whose DBG_VALUEs sit where
//! instruction selection and register allocation put them. Each
//! `DbgValue::variable` identifies one variable instance (variable, inlined
//! call and fragment): instruction selection gives overlapping fragments
//! distinct ids only when they never overlap.
//! Out: the same function with DBG_VALUEs added, never removed and never
//! moving code (so `.text` does not depend on them):
//! - at the start of a block, one for every location it inherits (a
//!   fixed-point dataflow over the blocks: a variable keeps a location
//!   into a block only where every predecessor ends with that same
//!   location) that some predecessor ends with otherwise (a join found a
//!   home every path holds the value in). A location every predecessor
//!   ends with needs none: history's own join over the final blocks
//!   carries it. Around a block that block placement skips (one that only
//!   jumps: it, its predecessors and its successors) every inherited
//!   location is restated, as block placement's check of what the skipped
//!   block changes reads their debug values;
//! - right after an instruction that overwrites the register a variable
//!   lives in, when a copy of the value survives elsewhere (a register it
//!   was copied to, the spill slot it was stored to, a register it was
//!   restored into, a register it was zero-extended into from at least its
//!   own width: sort.c's `n`, an `int` whose `zext` to 64 bits is
//!   the loop bound, lives on in that register after its own is reused, as
//!   LLVM's instruction-referencing LiveDebugValues finds it): the location
//!   follows the value;
//! - at a join where the predecessors hold a variable at different
//!   locations, the home every path has its value in, if any (a spill slot
//!   on one path, the register it was reloaded into on the other; a
//!   register loaded with the variable's constant on one, the register
//!   its value was copied to on the other: popcount32's `count` at a
//!   shared return).
//!
//! A debug value of a variable ends the locations of the variables whose
//! bits it shares ([`Function::debug_overlapping`]: the whole variable and
//! its fragments), as history ends their ranges: a fragment's older
//! location restated after a newer value of the whole would show a stale
//! part.
//!
//! Cost: an instruction looks only at the variables whose value is in a
//! home it overwrites or copies from (each location keeps a summary of its
//! homes), but every visit of a block starts from the state of every live
//! variable, so the pass grows with blocks × live variables; the dataflow
//! revisits a block only when a predecessor's exit state changed, and the
//! final code is made from what each block's last visit found, without
//! walking it again.

use std::rc::Rc;

use super::mir::{
    Access, AddressBase, BlockId, DbgOperand, DbgValue, FpSize, Function, Inst, InstKind, PhysReg,
    Reg, Ri, Rm, StackSlotId, StackSlotKind, Width,
};
use crate::x86::RegSet;

/// Where else a variable's value is known to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Home {
    Register(PhysReg),
    Spill(StackSlotId, Width),
}

impl Home {
    fn operand(self) -> DbgOperand {
        match self {
            Home::Register(reg) => DbgOperand::Reg(Reg::Phys(reg)),
            Home::Spill(slot, width) => DbgOperand::SpillSlot(slot, width),
        }
    }
}

/// A variable's location at a point, with the other homes of its value.
/// The value is shared: states are copied from block to block.
#[derive(Clone, Debug)]
struct Live {
    value: Rc<DbgValue>,
    loc: u32,
    copies: Vec<Home>,
    /// The homes `value` and `copies` are in ([`Live::rehome`]): an
    /// instruction that overwrites none of them leaves the live alone.
    homes: Homes,
}

impl PartialEq for Live {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value && self.loc == other.loc && self.copies == other.copies
    }
}

impl Live {
    fn new(value: Rc<DbgValue>, loc: u32) -> Live {
        let mut live = Live {
            value,
            loc,
            copies: Vec::new(),
            homes: Homes::default(),
        };
        live.rehome();
        live
    }

    /// Makes `homes` those of `value` and `copies` again, after either
    /// changed.
    fn rehome(&mut self) {
        let mut homes = Homes::default();
        for &operand in &self.value.operands {
            if let Some(home) = home_of(operand) {
                homes.add(home);
            }
            homes.constants |= matches!(operand, DbgOperand::Imm(_));
        }
        for &copy in &self.copies {
            homes.add(copy);
        }
        self.homes = homes;
    }
}

/// Live variable locations, sorted by variable id (the order locations are
/// moved in), one per variable, with a summary of the homes they use.
#[derive(Clone, Debug, Default)]
struct Locations {
    lives: Vec<(u32, Live)>,
    /// A superset of the homes the lives' values and copies are in: an
    /// instruction that overwrites none of them changes nothing.
    homes: Homes,
}

impl PartialEq for Locations {
    fn eq(&self, other: &Self) -> bool {
        self.lives == other.lives
    }
}

/// Registers, and whether any spill slot: the homes of a set of locations;
/// and whether any location is a constant (a `mov` of an immediate can copy
/// only those).
#[derive(Clone, Copy, Debug, Default)]
struct Homes {
    registers: RegSet,
    spill_slots: bool,
    constants: bool,
}

impl Homes {
    fn add(&mut self, home: Home) {
        match home {
            Home::Register(reg) => self.registers.insert(reg),
            Home::Spill(..) => self.spill_slots = true,
        }
    }

    fn add_live(&mut self, live: &Live) {
        self.registers = self.registers.union(live.homes.registers);
        self.spill_slots |= live.homes.spill_slots;
        self.constants |= live.homes.constants;
    }

    /// Whether `home` may be one of these.
    fn may_hold(&self, home: Home) -> bool {
        match home {
            Home::Register(reg) => self.registers.contains(reg),
            Home::Spill(..) => self.spill_slots,
        }
    }
}

/// Runs the pass over `function` (see the module documentation).
pub fn run(function: &mut Function) {
    let blocks = function.blocks.len();
    if blocks == 0 {
        return;
    }
    let successors: Vec<Vec<BlockId>> = (0..blocks)
        .map(|b| function.successors(BlockId(b as u32)))
        .collect();
    let mut predecessors = vec![Vec::new(); blocks];
    for (block, succs) in successors.iter().enumerate() {
        for s in succs {
            predecessors[s.0 as usize].push(block);
        }
    }
    let order = super::loop_depth::every_block_in_reverse_post_order(
        &successors
            .iter()
            .map(|succs| succs.iter().map(|s| s.0 as usize).collect())
            .collect::<Vec<_>>(),
    );
    let facts = Facts {
        spill_slots: function
            .stack_slots
            .iter()
            .map(|slot| slot.kind == StackSlotKind::Spill)
            .collect(),
        value_bits: function.debug_value_bits.clone(),
        overlapping: std::mem::take(&mut function.debug_overlapping),
    };
    // Each debug instruction's value, shared by every visit of its block.
    let values: Vec<Vec<Option<Rc<DbgValue>>>> = function
        .blocks
        .iter()
        .map(|block| {
            block
                .insts
                .iter()
                .map(|inst| match &inst.kind {
                    InstKind::DbgValue(value) => Some(Rc::new(value.clone())),
                    _ => None,
                })
                .collect()
        })
        .collect();
    // Per block, how many locations its walk may add to the state it
    // starts from: one per debug instruction at most.
    let debug_counts: Vec<usize> = values
        .iter()
        .map(|block| block.iter().filter(|value| value.is_some()).count())
        .collect();

    let mut exits: Vec<Option<Locations>> = vec![None; blocks];
    // What each block's last visit found: the final code needs nothing else.
    let mut visits: Vec<Visit> = (0..blocks).map(|_| Visit::default()).collect();
    // A block is visited again only when a predecessor's exit changed.
    let mut dirty = vec![true; blocks];
    let mut changed = true;
    while changed {
        changed = false;
        for &block in &order {
            if !dirty[block] {
                continue;
            }
            dirty[block] = false;
            let mut state = meet(block, &predecessors[block], &exits, debug_counts[block]);
            let visit = &mut visits[block];
            visit.restated.clear();
            visit.moved.clear();
            if block != 0 {
                visit.restated.extend(
                    state
                        .lives
                        .iter()
                        .map(|(variable, live)| (*variable, Rc::clone(&live.value), live.loc)),
                );
            }
            for (i, (inst, value)) in function.blocks[block]
                .insts
                .iter()
                .zip(&values[block])
                .enumerate()
            {
                transfer(
                    inst,
                    value.as_ref(),
                    &facts,
                    &mut state,
                    &mut |value, loc| visit.moved.push((i, value, loc)),
                );
            }
            if exits[block].as_ref() != Some(&state) {
                exits[block] = Some(state);
                changed = true;
                for s in &successors[block] {
                    dirty[s.0 as usize] = true;
                }
            }
        }
    }

    // The exits are final, so each block's last visit started from its
    // final entry and saw what a walk now would.
    // The blocks block placement will skip (only a jump, debug values
    // aside), found once on the code as it stands.
    let skipped: Vec<bool> = (0..blocks)
        .map(|b| super::block_placement::jump_only_target(function, b).is_some())
        .collect();
    for (block, visit) in visits.into_iter().enumerate() {
        // A location every visited predecessor ends with needs no
        // restatement: history carries it in (its own dataflow joins the
        // same way). Around a block that block placement skips, every
        // location is restated: the skipped block's debug values go with
        // it, and block placement reads its neighbours' to see what it
        // changed.
        let after_skipped = skipped[block]
            || predecessors[block].iter().any(|&p| skipped[p])
            || successors[block].iter().any(|s| skipped[s.0 as usize]);
        let unchanged = |variable: u32, value: &Rc<DbgValue>| {
            !after_skipped
                && predecessors[block]
                    .iter()
                    .filter_map(|&p| exits[p].as_ref())
                    .all(|exit| {
                        exit.lives
                            .binary_search_by_key(&variable, |(v, _)| *v)
                            .is_ok_and(|at| {
                                let theirs = &exit.lives[at].1.value;
                                Rc::ptr_eq(theirs, value) || **theirs == **value
                            })
                    })
        };
        let old = std::mem::take(&mut function.blocks[block].insts);
        // (One more: block placement may append a jump, which must not
        // copy the block to grow it.)
        let mut insts =
            Vec::with_capacity(old.len() + visit.restated.len() + visit.moved.len() + 1);
        // In variable order. Keep the block's leading label-free position:
        // the restated locations come first, before any instruction.
        insts.extend(
            visit
                .restated
                .into_iter()
                .filter(|(variable, value, _)| !unchanged(*variable, value))
                .map(|(_, value, loc)| Inst::new(InstKind::DbgValue(DbgValue::clone(&value)), loc)),
        );
        let mut moved = visit.moved.into_iter().peekable();
        for (i, inst) in old.into_iter().enumerate() {
            insts.push(inst);
            while let Some((_, value, loc)) = moved.next_if(|(at, ..)| *at == i) {
                insts.push(Inst::new(InstKind::DbgValue(value), loc));
            }
        }
        function.blocks[block].insts = insts;
    }
}

/// What the last visit of a block found: the locations it inherits, by
/// variable (restated at its start where [`run`] says; none for the entry
/// block) and, after which
/// instruction, each location that followed its value to another home.
#[derive(Default)]
struct Visit {
    restated: Vec<(u32, Rc<DbgValue>, u32)>,
    moved: Vec<(usize, DbgValue, u32)>,
}

/// The locations all visited predecessors agree on (the entry block starts
/// empty), with room for `room` more without growing (growing a state of
/// hundreds of locations copies it all).
fn meet(
    block: usize,
    predecessors: &[usize],
    exits: &[Option<Locations>],
    room: usize,
) -> Locations {
    if block == 0 {
        return Locations::default();
    }
    let mut visited = predecessors.iter().filter_map(|p| exits[*p].as_ref());
    let Some(first) = visited.next() else {
        return Locations::default();
    };
    let mut agreed = Vec::with_capacity(first.lives.len() + room);
    agreed.extend(first.lives.iter().cloned());
    for other in visited {
        // Both are sorted by variable: a merge.
        let mut rest = other.lives.as_slice();
        agreed.retain_mut(|(variable, live)| {
            // Most variables are in both: a step, not a search.
            while rest.first().is_some_and(|(v, _)| v < variable) {
                rest = &rest[1..];
            }
            match rest.first() {
                Some((v, theirs)) if v == variable => {
                    // (Most are the same shared value: no comparison.)
                    if Rc::ptr_eq(&theirs.value, &live.value)
                        || theirs.value.same_location(&live.value)
                    {
                        if !live.copies.is_empty() {
                            live.copies.retain(|c| theirs.copies.contains(c));
                            live.rehome();
                        }
                        return true;
                    }
                    meet_at_common_home(live, theirs)
                }
                _ => false,
            }
        });
    }
    let mut homes = Homes::default();
    for (_, live) in &agreed {
        homes.add_live(live);
    }
    Locations {
        lives: agreed,
        homes,
    }
}

/// Two predecessors hold a variable's value at different locations: the
/// join keeps it where both have the value (one's location among the
/// other's copies: a spill slot on one path, the register it was reloaded
/// into on the other), as LLVM's value-based LiveDebugValues does. Updates
/// `live` to that home and returns whether there is one.
fn meet_at_common_home(live: &mut Live, theirs: &Live) -> bool {
    let comparable = live.value.variable == theirs.value.variable
        && live.value.expr == theirs.value.expr
        && live.value.indirect == theirs.value.indirect
        && live.value.operands.len() == 1
        && theirs.value.operands.len() == 1;
    if !comparable {
        return false;
    }
    let homes = |l: &Live| -> Vec<Home> {
        home_of(l.value.operands[0])
            .into_iter()
            .chain(l.copies.iter().copied())
            .collect()
    };
    // One spill slot written at two widths holds the narrower on both paths.
    let theirs_homes = homes(theirs);
    let common: Vec<Home> = homes(live)
        .into_iter()
        .filter_map(|h| {
            theirs_homes.iter().find_map(|&t| match (h, t) {
                (Home::Spill(a, wa), Home::Spill(b, wb)) if a == b => {
                    Some(Home::Spill(a, if wa.bits() <= wb.bits() { wa } else { wb }))
                }
                _ => (h == t).then_some(h),
            })
        })
        .collect();
    let Some((&home, rest)) = common.split_first() else {
        return false;
    };
    let value = Rc::make_mut(&mut live.value);
    value.operands[0] = home.operand();
    value.moved = true;
    live.copies = rest.to_vec();
    live.rehome();
    true
}

/// What [`transfer`] knows of the function besides its instructions.
struct Facts {
    /// Per stack slot: whether it is a spill slot.
    spill_slots: Vec<bool>,
    /// Per debug expression: the widest value its operands hold, in bits
    /// ([`Function::debug_value_bits`]).
    value_bits: Vec<u16>,
    /// Per variable: the variables whose bits it shares
    /// ([`Function::debug_overlapping`]).
    overlapping: Vec<Vec<u32>>,
}

impl Facts {
    /// The widest value the operands of expression `expr` hold, in bits.
    fn value_bits(&self, expr: u32) -> u32 {
        self.value_bits
            .get(expr as usize)
            .map_or(64, |&bits| u32::from(bits))
    }
}

/// Applies one instruction (with its value, if it is a debug instruction)
/// to the live locations; `moved` hears of every location that followed its
/// value to another home.
fn transfer(
    inst: &Inst,
    debug_value: Option<&Rc<DbgValue>>,
    facts: &Facts,
    state: &mut Locations,
    moved: &mut dyn FnMut(DbgValue, u32),
) {
    if let Some(value) = debug_value {
        let lives = &mut state.lives;
        // A new value of a variable ends what overlaps it (the whole
        // variable and a fragment of it, two overlapping fragments), as
        // history ends their ranges.
        for &other in facts
            .overlapping
            .get(value.variable as usize)
            .into_iter()
            .flatten()
        {
            if other != value.variable {
                if let Ok(at) = lives.binary_search_by_key(&other, |(v, _)| *v) {
                    lives.remove(at);
                }
            }
        }
        let at = lives.binary_search_by_key(&value.variable, |(v, _)| *v);
        if value.operands.iter().all(|o| *o == DbgOperand::NoReg) {
            if let Ok(at) = at {
                lives.remove(at);
            }
        } else {
            let live = Live::new(Rc::clone(value), inst.loc);
            state.homes.add_live(&live);
            match at {
                Ok(at) => lives[at].1 = live,
                Err(at) => lives.insert(at, (value.variable, live)),
            }
        }
        return;
    }

    // The value homes this instruction creates (before its defs kill
    // anything), each with the bits of the value it keeps (an extending
    // move keeps its source width).
    let mut new_copy: Option<(DbgOperand, Home)> = None;
    let mut kept_bits = 64;
    match &inst.kind {
        InstKind::Copy {
            dst: Reg::Phys(dst),
            src: Reg::Phys(src),
        } => new_copy = Some((DbgOperand::Reg(Reg::Phys(*src)), Home::Register(*dst))),
        InstKind::Extend {
            dst: Reg::Phys(dst),
            src: Rm::Reg(Reg::Phys(src)),
            from,
            signed: false,
            ..
        } => {
            new_copy = Some((DbgOperand::Reg(Reg::Phys(*src)), Home::Register(*dst)));
            kept_bits = from.bits();
        }
        // A register loaded with a variable's constant holds its value (a
        // return value's `mov eax, 0` on the path where `count` is 0).
        InstKind::MovImm {
            dst: Reg::Phys(dst),
            imm,
            width,
        } => {
            // What the whole register holds: a 32-bit `mov` clears the
            // upper half, a narrower one keeps it (only its bits count).
            let (held, bits) = match width {
                Width::W8 | Width::W16 => (*imm, width.bits()),
                Width::W32 => (i64::from(*imm as u32), 64),
                Width::W64 => (*imm, 64),
            };
            new_copy = Some((DbgOperand::Imm(held), Home::Register(*dst)));
            kept_bits = bits;
        }
        InstKind::Store {
            src: Ri::Reg(Reg::Phys(src)),
            addr,
            width,
        } if addr.index.is_none() && addr.disp == 0 => {
            if let AddressBase::Slot(slot) = addr.base {
                new_copy = Some((DbgOperand::Reg(Reg::Phys(*src)), Home::Spill(slot, *width)));
            }
        }
        InstKind::Load {
            dst: Reg::Phys(dst),
            addr,
            width,
        } if addr.index.is_none() && addr.disp == 0 => {
            if let AddressBase::Slot(slot) = addr.base {
                new_copy = Some((DbgOperand::SpillSlot(slot, *width), Home::Register(*dst)));
            }
        }
        // Spills and reloads of xmm registers: all 64 bits, as a
        // general-purpose register's.
        InstKind::FpStore {
            src: Reg::Phys(src),
            addr,
            size: FpSize::F64,
        } if addr.index.is_none() && addr.disp == 0 => {
            if let AddressBase::Slot(slot) = addr.base {
                new_copy = Some((
                    DbgOperand::Reg(Reg::Phys(*src)),
                    Home::Spill(slot, Width::W64),
                ));
            }
        }
        // A vector's spill and reload: the slot is its memory home.
        InstKind::VecStore {
            src: Reg::Phys(src),
            addr,
            bytes: 16,
        } if addr.index.is_none() && addr.disp == 0 => {
            if let AddressBase::Slot(slot) = addr.base {
                new_copy = Some((
                    DbgOperand::Reg(Reg::Phys(*src)),
                    Home::Spill(slot, Width::W64),
                ));
            }
        }
        InstKind::VecLoad {
            dst: Reg::Phys(dst),
            addr,
            bytes: 16,
        } if addr.index.is_none() && addr.disp == 0 => {
            if let AddressBase::Slot(slot) = addr.base {
                new_copy = Some((
                    DbgOperand::SpillSlot(slot, Width::W64),
                    Home::Register(*dst),
                ));
            }
        }
        InstKind::FpLoad {
            dst: Reg::Phys(dst),
            addr,
            size: FpSize::F64,
        } if addr.index.is_none() && addr.disp == 0 => {
            if let AddressBase::Slot(slot) = addr.base {
                new_copy = Some((
                    DbgOperand::SpillSlot(slot, Width::W64),
                    Home::Register(*dst),
                ));
            }
        }
        _ => {}
    }
    // Only a spill slot is a home: an alloca's memory is also written
    // through pointers and by callees, which no slot store here shows.
    let new_copy = new_copy.filter(|(_, to)| match to {
        Home::Spill(slot, _) => facts.spill_slots.get(slot.0 as usize) == Some(&true),
        Home::Register(_) => true,
    });

    // Everything this instruction overwrites: registers, and a spill slot
    // at every width.
    let mut killed_registers = inst.kind.implicit_defs();
    inst.kind.visit_regs(&mut |reg, access| {
        if let (Reg::Phys(reg), Access::Def | Access::UseDef) = (reg, access) {
            killed_registers.insert(reg);
        }
    });
    let killed_slot = match &inst.kind {
        InstKind::Store { addr, .. }
        | InstKind::FpStore { addr, .. }
        | InstKind::VecStore { addr, .. } => match addr.base {
            AddressBase::Slot(slot) => Some(slot),
            _ => None,
        },
        _ => None,
    };
    let killed = |home: &Home| match *home {
        Home::Register(reg) => killed_registers.contains(reg),
        Home::Spill(slot, _) => killed_slot == Some(slot),
    };

    let kills_a_home = killed_registers.0 & state.homes.registers.0 != 0
        || (killed_slot.is_some() && state.homes.spill_slots);
    if kills_a_home {
        // In variable order.
        let mut homes = Homes::default();
        state.lives.retain_mut(|(_, live)| {
            let touched = killed_registers.0 & live.homes.registers.0 != 0
                || (killed_slot.is_some() && live.homes.spill_slots);
            if !touched {
                homes.add_live(live);
                return true;
            }
            live.copies.retain(|c| !killed(c));
            let overwritten = live
                .value
                .operands
                .iter()
                .any(|o| home_of(*o).is_some_and(|home| killed(&home)));
            live.rehome();
            if !overwritten {
                homes.add_live(live);
                return true;
            }
            // The value's home is overwritten: follow a surviving copy, if any.
            match live.copies.first().copied() {
                Some(copy) if live.value.operands.len() == 1 => {
                    let value = Rc::make_mut(&mut live.value);
                    value.operands[0] = copy.operand();
                    value.moved = true;
                    live.copies.remove(0);
                    live.rehome();
                    moved(DbgValue::clone(&live.value), live.loc);
                    homes.add_live(live);
                    true
                }
                _ => false,
            }
        });
        state.homes = homes;
    }
    if let Some((from, to)) = new_copy {
        let from_home = home_of(from);
        let may_hold = |homes: &Homes| match from_home {
            Some(home) => homes.may_hold(home),
            None => homes.constants,
        };
        if !may_hold(&state.homes) {
            return;
        }
        for (_, live) in state.lives.iter_mut() {
            if !may_hold(&live.homes) {
                continue;
            }
            let bits = facts.value_bits(live.value.expr);
            let holds_value = live.value.operands.len() == 1
                && bits <= kept_bits
                && match (from, live.value.operands[0]) {
                    (DbgOperand::Imm(loaded), DbgOperand::Imm(held)) => {
                        same_low_bits(loaded, held, bits)
                    }
                    _ => {
                        reads_all_of(from, live.value.operands[0])
                            || from_home.is_some_and(|home| live.copies.contains(&home))
                    }
                };
            if holds_value
                && home_of(live.value.operands[0]) != Some(to)
                && !live.copies.contains(&to)
            {
                live.copies.push(to);
                live.homes.add(to);
                state.homes.add(to);
            }
        }
    }
}

/// Whether two constants agree in their low `bits` bits.
fn same_low_bits(a: i64, b: i64, bits: u32) -> bool {
    let mask = if bits >= 64 { !0 } else { (1u64 << bits) - 1 };
    (a as u64 ^ b as u64) & mask == 0
}

/// Whether a copy from `from` takes all of the value `operand` names: the
/// same operand, or a reload of the same spill slot at least as wide as
/// the value spilled there (a 32-bit variable's register is spilled and
/// reloaded whole, 64 bits).
fn reads_all_of(from: DbgOperand, operand: DbgOperand) -> bool {
    from == operand
        || matches!(
            (from, operand),
            (DbgOperand::SpillSlot(read, read_width), DbgOperand::SpillSlot(held, held_width))
                if read == held && read_width.bits() >= held_width.bits()
        )
}

/// The home an operand names, if it is a register or a spill slot.
fn home_of(operand: DbgOperand) -> Option<Home> {
    match operand {
        DbgOperand::Reg(Reg::Phys(reg)) => Some(Home::Register(reg)),
        DbgOperand::SpillSlot(slot, width) => Some(Home::Spill(slot, width)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::mir::{Address, Cond, DbgOperands, Gpr, StackSlotKind};
    use crate::x86::abi::CALLER_SAVED;
    use expect_test::{expect, Expect};

    fn phys(gpr: Gpr) -> Reg {
        gpr.into()
    }

    fn dbg(variable: u32, operand: DbgOperand) -> Inst {
        Inst::new(
            InstKind::DbgValue(DbgValue {
                variable,
                operands: DbgOperands::one(operand),
                expr: 0,
                indirect: false,
                moved: false,
            }),
            7,
        )
    }

    fn inst(kind: InstKind) -> Inst {
        Inst::new(kind, 7)
    }

    /// An empty function `name` of `blocks` blocks.
    /// Variables 1 and 2 in `x` and `y`, then `je bb.2` (the head of a
    /// diamond).
    fn two_values_then_branch(x: Gpr, y: Gpr) -> Vec<Inst> {
        vec![
            dbg(1, DbgOperand::Reg(phys(x))),
            dbg(2, DbgOperand::Reg(phys(y))),
            inst(InstKind::Jcc {
                cond: Cond::E,
                target: BlockId(2),
            }),
        ]
    }

    fn with_blocks(name: &str, blocks: usize) -> Function {
        let mut f = Function::new(name);
        for _ in 0..blocks {
            f.new_block();
        }
        f
    }

    fn check(mut function: Function, expected: Expect) {
        run(&mut function);
        expected.assert_eq(&function.to_string());
    }

    #[test]
    fn locations_all_predecessors_agree_on_reach_the_join() {
        // b0: x, y in rbx; branch to b1 or b2; b1 moves y; both reach b3.
        let mut f = with_blocks("diamond", 4);
        f.blocks[0].insts = two_values_then_branch(Gpr::Rbx, Gpr::Rbx);
        f.blocks[1].insts = vec![
            dbg(2, DbgOperand::Imm(5)),
            inst(InstKind::Jmp { target: BlockId(3) }),
        ];
        f.blocks[2].insts = vec![inst(InstKind::Jmp { target: BlockId(3) })];
        f.blocks[3].insts = vec![inst(InstKind::Ret { uses: vec![] })];
        check(
            f,
            expect![[r#"
                name: diamond
                bb.0:  ; succ bb.1, bb.2
                  DBG_VALUE $rbx, !var1, !expr0  ; loc 7
                  DBG_VALUE $rbx, !var2, !expr0  ; loc 7
                  JE bb.2  ; loc 7
                bb.1:  ; succ bb.3
                  DBG_VALUE $rbx, !var1, !expr0  ; loc 7
                  DBG_VALUE $rbx, !var2, !expr0  ; loc 7
                  DBG_VALUE 5, !var2, !expr0  ; loc 7
                  JMP bb.3  ; loc 7
                bb.2:  ; succ bb.3
                  DBG_VALUE $rbx, !var1, !expr0  ; loc 7
                  DBG_VALUE $rbx, !var2, !expr0  ; loc 7
                  JMP bb.3  ; loc 7
                bb.3:
                  DBG_VALUE $rbx, !var1, !expr0  ; loc 7
                  RET  ; loc 7
            "#]],
        );
    }

    #[test]
    fn a_location_follows_its_value_through_a_copy_and_a_spill() {
        let mut f = with_blocks("follow", 1);
        let slot = f.new_stack_slot(8, 8, StackSlotKind::Spill);
        f.blocks[0].insts = vec![
            dbg(1, DbgOperand::Reg(phys(Gpr::Rdi))),
            dbg(2, DbgOperand::Reg(phys(Gpr::Rsi))),
            inst(InstKind::Copy {
                dst: phys(Gpr::Rbx),
                src: phys(Gpr::Rdi),
            }),
            inst(InstKind::Store {
                src: Ri::Reg(phys(Gpr::Rsi)),
                addr: Address::slot(slot, 0),
                width: Width::W64,
            }),
            inst(InstKind::MovImm {
                dst: phys(Gpr::Rdi),
                imm: 0,
                width: Width::W32,
            }),
            inst(InstKind::Call {
                target: crate::codegen::mir::CallTarget::Symbol("f".to_string()),
                args: vec![Gpr::Rdi.into()],
                rets: vec![Gpr::Rax.into()],
                clobbers: CALLER_SAVED,
                unwind: None,
            }),
            inst(InstKind::Copy {
                dst: phys(Gpr::Rbx),
                src: phys(Gpr::Rax),
            }),
            inst(InstKind::Ret { uses: vec![] }),
        ];
        check(
            f,
            expect![[r#"
                name: follow
                  %stack.0: size 8, align 8, spill
                bb.0:
                  DBG_VALUE $rdi, !var1, !expr0  ; loc 7
                  DBG_VALUE $rsi, !var2, !expr0  ; loc 7
                  $rbx = COPY $rdi  ; loc 7
                  STORE64 [%stack.0], $rsi  ; loc 7
                  $rdi = MOV32 0  ; loc 7
                  DBG_VALUE $rbx, !var1, !expr0, moved  ; loc 7
                  CALL @f, args($rdi), rets($rax)  ; loc 7
                  DBG_VALUE %stack.0:64, !var2, !expr0, moved  ; loc 7
                  $rbx = COPY $rax  ; loc 7
                  RET  ; loc 7
            "#]],
        );
    }

    #[test]
    fn a_location_follows_its_value_into_a_zero_extended_copy_that_keeps_all_of_it() {
        // x (expression 0) holds 32 bits, y (expression 1) 64: when rsi is
        // reused, x lives on in the `mov eax, esi` that zero-extended it,
        // y does not (its upper half was not copied); nor does x in a
        // sign-extended copy (its upper bits are no longer those it had).
        let mut f = with_blocks("extend", 1);
        f.debug_value_bits = vec![32, 64];
        let mut y = dbg(2, DbgOperand::Reg(phys(Gpr::Rsi)));
        if let InstKind::DbgValue(value) = &mut y.kind {
            value.expr = 1;
        }
        f.blocks[0].insts = vec![
            dbg(1, DbgOperand::Reg(phys(Gpr::Rsi))),
            y,
            dbg(3, DbgOperand::Reg(phys(Gpr::Rdi))),
            inst(InstKind::Extend {
                dst: phys(Gpr::Rax),
                src: Rm::Reg(phys(Gpr::Rsi)),
                from: Width::W32,
                to: Width::W64,
                signed: false,
            }),
            inst(InstKind::Extend {
                dst: phys(Gpr::Rcx),
                src: Rm::Reg(phys(Gpr::Rdi)),
                from: Width::W32,
                to: Width::W64,
                signed: true,
            }),
            inst(InstKind::MovImm {
                dst: phys(Gpr::Rsi),
                imm: 0,
                width: Width::W32,
            }),
            inst(InstKind::MovImm {
                dst: phys(Gpr::Rdi),
                imm: 0,
                width: Width::W32,
            }),
            inst(InstKind::Ret { uses: vec![] }),
        ];
        check(
            f,
            expect![[r#"
                name: extend
                bb.0:
                  DBG_VALUE $rsi, !var1, !expr0  ; loc 7
                  DBG_VALUE $rsi, !var2, !expr1  ; loc 7
                  DBG_VALUE $rdi, !var3, !expr0  ; loc 7
                  $rax = MOVZX64_32 $rsi  ; loc 7
                  $rcx = MOVSX64_32 $rdi  ; loc 7
                  $rsi = MOV32 0  ; loc 7
                  DBG_VALUE $rax, !var1, !expr0, moved  ; loc 7
                  $rdi = MOV32 0  ; loc 7
                  RET  ; loc 7
            "#]],
        );
    }

    #[test]
    fn a_block_restates_only_what_some_predecessor_leaves_otherwise() {
        // b0: x in rbx, y in rdx; b1 copies rbx to rcx and reuses rbx (x
        // follows to rcx); b2 only copies it. At b3 y is where both left
        // it (nothing to say) and x is in rcx on both paths.
        let mut f = with_blocks("join", 4);
        f.blocks[0].insts = two_values_then_branch(Gpr::Rbx, Gpr::Rdx);
        f.blocks[1].insts = vec![
            inst(InstKind::Copy {
                dst: phys(Gpr::Rcx),
                src: phys(Gpr::Rbx),
            }),
            inst(InstKind::MovImm {
                dst: phys(Gpr::Rbx),
                imm: 0,
                width: Width::W64,
            }),
            inst(InstKind::Jmp { target: BlockId(3) }),
        ];
        f.blocks[2].insts = vec![
            inst(InstKind::Copy {
                dst: phys(Gpr::Rcx),
                src: phys(Gpr::Rbx),
            }),
            inst(InstKind::Jmp { target: BlockId(3) }),
        ];
        f.blocks[3].insts = vec![inst(InstKind::Ret { uses: vec![] })];
        check(
            f,
            expect![[r#"
                name: join
                bb.0:  ; succ bb.1, bb.2
                  DBG_VALUE $rbx, !var1, !expr0  ; loc 7
                  DBG_VALUE $rdx, !var2, !expr0  ; loc 7
                  JE bb.2  ; loc 7
                bb.1:  ; succ bb.3
                  $rcx = COPY $rbx  ; loc 7
                  $rbx = MOV64 0  ; loc 7
                  DBG_VALUE $rcx, !var1, !expr0, moved  ; loc 7
                  JMP bb.3  ; loc 7
                bb.2:  ; succ bb.3
                  $rcx = COPY $rbx  ; loc 7
                  JMP bb.3  ; loc 7
                bb.3:
                  DBG_VALUE $rcx, !var1, !expr0, moved  ; loc 7
                  RET  ; loc 7
            "#]],
        );
    }

    #[test]
    fn a_value_of_a_variable_ends_the_locations_of_the_variables_it_overlaps() {
        // Variable 1 is the whole of a variable, 2 a fragment of it. After
        // b0 sets the whole and then the fragment, only the fragment has a
        // location: b2, after a block that block placement skips, restates
        // every location it inherits, and the whole is not among them.
        let mut f = with_blocks("fragments", 3);
        f.debug_overlapping = vec![vec![0], vec![1, 2], vec![1, 2]];
        f.blocks[0].insts = two_values_then_branch(Gpr::Rbx, Gpr::Rcx);
        f.blocks[1].insts = vec![inst(InstKind::Jmp { target: BlockId(2) })];
        f.blocks[2].insts = vec![inst(InstKind::Ret { uses: vec![] })];
        check(
            f,
            expect![[r#"
                name: fragments
                bb.0:  ; succ bb.1, bb.2
                  DBG_VALUE $rbx, !var1, !expr0  ; loc 7
                  DBG_VALUE $rcx, !var2, !expr0  ; loc 7
                  JE bb.2  ; loc 7
                bb.1:  ; succ bb.2
                  DBG_VALUE $rcx, !var2, !expr0  ; loc 7
                  JMP bb.2  ; loc 7
                bb.2:
                  DBG_VALUE $rcx, !var2, !expr0  ; loc 7
                  RET  ; loc 7
            "#]],
        );
    }

    #[test]
    fn a_loop_keeps_a_location_its_back_edge_agrees_on() {
        let mut f = with_blocks("loop", 3);
        f.blocks[0].insts = vec![dbg(1, DbgOperand::Reg(phys(Gpr::Rbx)))];
        f.blocks[1].insts = vec![
            inst(InstKind::Alu {
                op: crate::codegen::mir::AluOp::Add,
                width: Width::W32,
                dst: phys(Gpr::Rcx),
                src: crate::codegen::mir::Rmi::Imm(1),
            }),
            inst(InstKind::Jcc {
                cond: Cond::Ne,
                target: BlockId(1),
            }),
        ];
        f.blocks[2].insts = vec![inst(InstKind::Ret { uses: vec![] })];
        check(
            f,
            expect![[r#"
                name: loop
                bb.0:  ; succ bb.1
                  DBG_VALUE $rbx, !var1, !expr0  ; loc 7
                bb.1:  ; succ bb.1, bb.2
                  $rcx = ADD32 $rcx, 1  ; loc 7
                  JNE bb.1  ; loc 7
                bb.2:
                  RET  ; loc 7
            "#]],
        );
    }

    #[test]
    fn a_copy_of_a_copy_holds_the_value() {
        // x in rdi, copied to rbx, rbx copied to rcx; rdi and rbx reused:
        // x follows to rcx.
        let mut f = with_blocks("chain", 1);
        f.blocks[0].insts = vec![
            dbg(1, DbgOperand::Reg(phys(Gpr::Rdi))),
            inst(InstKind::Copy {
                dst: phys(Gpr::Rbx),
                src: phys(Gpr::Rdi),
            }),
            inst(InstKind::Copy {
                dst: phys(Gpr::Rcx),
                src: phys(Gpr::Rbx),
            }),
            inst(InstKind::MovImm {
                dst: phys(Gpr::Rdi),
                imm: 0,
                width: Width::W32,
            }),
            inst(InstKind::MovImm {
                dst: phys(Gpr::Rbx),
                imm: 0,
                width: Width::W32,
            }),
            inst(InstKind::Ret { uses: vec![] }),
        ];
        check(
            f,
            expect![[r#"
                name: chain
                bb.0:
                  DBG_VALUE $rdi, !var1, !expr0  ; loc 7
                  $rbx = COPY $rdi  ; loc 7
                  $rcx = COPY $rbx  ; loc 7
                  $rdi = MOV32 0  ; loc 7
                  DBG_VALUE $rbx, !var1, !expr0, moved  ; loc 7
                  $rbx = MOV32 0  ; loc 7
                  DBG_VALUE $rcx, !var1, !expr0, moved  ; loc 7
                  RET  ; loc 7
            "#]],
        );
    }

    /// x (spilled at `width`) in its spill slot; a loop reloads it whole
    /// into rsi and stores rsi back (the slot rewritten with the value it
    /// holds).
    fn reload_loop(width: Width) -> Function {
        let mut f = with_blocks("reload", 3);
        let slot = f.new_stack_slot(8, 8, StackSlotKind::Spill);
        f.blocks[0].insts = vec![dbg(1, DbgOperand::SpillSlot(slot, width))];
        f.blocks[1].insts = vec![
            inst(InstKind::Load {
                dst: phys(Gpr::Rsi),
                addr: Address::slot(slot, 0),
                width: Width::W64,
            }),
            inst(InstKind::Store {
                src: Ri::Reg(phys(Gpr::Rsi)),
                addr: Address::slot(slot, 0),
                width: Width::W64,
            }),
            inst(InstKind::Jcc {
                cond: Cond::Ne,
                target: BlockId(1),
            }),
        ];
        f.blocks[2].insts = vec![inst(InstKind::Ret { uses: vec![] })];
        f
    }

    #[test]
    fn a_join_keeps_the_home_both_paths_hold_the_value_in() {
        // x in its spill slot; the loop reloads it into rsi and stores rsi
        // back (the slot is rewritten with the value it holds): at the
        // loop head the entry says the slot, the back edge rsi with the
        // slot as a copy, so x stays in the slot.
        check(
            reload_loop(Width::W64),
            expect![[r#"
                name: reload
                  %stack.0: size 8, align 8, spill
                bb.0:  ; succ bb.1
                  DBG_VALUE %stack.0:64, !var1, !expr0  ; loc 7
                bb.1:  ; succ bb.1, bb.2
                  DBG_VALUE %stack.0:64, !var1, !expr0, moved  ; loc 7
                  $rsi = LOAD64 [%stack.0]  ; loc 7
                  STORE64 [%stack.0], $rsi  ; loc 7
                  DBG_VALUE $rsi, !var1, !expr0, moved  ; loc 7
                  JNE bb.1  ; loc 7
                bb.2:
                  RET  ; loc 7
            "#]],
        );
    }

    #[test]
    fn a_register_loaded_with_a_variables_constant_holds_it_at_the_join() {
        // popcount32's shared return: count is 0 on the early exit, where
        // eax is loaded with 0, and in rcx after the loop, copied to rax:
        // at the return both paths hold count in rax.
        let mut f = with_blocks("count", 4);
        f.blocks[0].insts = vec![
            dbg(1, DbgOperand::Imm(0)),
            inst(InstKind::Jcc {
                cond: Cond::E,
                target: BlockId(2),
            }),
        ];
        f.blocks[1].insts = vec![
            inst(InstKind::MovImm {
                dst: phys(Gpr::Rax),
                imm: 0,
                width: Width::W32,
            }),
            inst(InstKind::Jmp { target: BlockId(3) }),
        ];
        f.blocks[2].insts = vec![
            dbg(1, DbgOperand::Reg(phys(Gpr::Rcx))),
            inst(InstKind::Copy {
                dst: phys(Gpr::Rax),
                src: phys(Gpr::Rcx),
            }),
            inst(InstKind::Jmp { target: BlockId(3) }),
        ];
        f.blocks[3].insts = vec![inst(InstKind::Ret { uses: vec![] })];
        check(
            f,
            expect![[r#"
                name: count
                bb.0:  ; succ bb.1, bb.2
                  DBG_VALUE 0, !var1, !expr0  ; loc 7
                  JE bb.2  ; loc 7
                bb.1:  ; succ bb.3
                  $rax = MOV32 0  ; loc 7
                  JMP bb.3  ; loc 7
                bb.2:  ; succ bb.3
                  DBG_VALUE $rcx, !var1, !expr0  ; loc 7
                  $rax = COPY $rcx  ; loc 7
                  JMP bb.3  ; loc 7
                bb.3:
                  DBG_VALUE $rax, !var1, !expr0, moved  ; loc 7
                  RET  ; loc 7
            "#]],
        );
    }

    #[test]
    fn a_whole_register_reload_of_a_narrow_spill_is_a_copy() {
        // As above with a 32-bit x: its register is spilled and reloaded
        // whole (64 bits), and the reload still copies x (it was not, and
        // the store back into the slot ended x: bzip2's fallbackSort lost
        // `nblock` so).
        check(
            reload_loop(Width::W32),
            expect![[r#"
                name: reload
                  %stack.0: size 8, align 8, spill
                bb.0:  ; succ bb.1
                  DBG_VALUE %stack.0:32, !var1, !expr0  ; loc 7
                bb.1:  ; succ bb.1, bb.2
                  DBG_VALUE %stack.0:32, !var1, !expr0, moved  ; loc 7
                  $rsi = LOAD64 [%stack.0]  ; loc 7
                  STORE64 [%stack.0], $rsi  ; loc 7
                  DBG_VALUE $rsi, !var1, !expr0, moved  ; loc 7
                  JNE bb.1  ; loc 7
                bb.2:
                  RET  ; loc 7
            "#]],
        );
    }
}
