//! Instruction selection: one IR function to MIR over virtual registers.
//!
//! In: an [`ir::Function`] definition of a module. Out: a
//! [`mir::Function`] in two-address x86 form over virtual registers, with
//! physical registers only where the SysV ABI or an instruction needs them,
//! plus the [`DebugTable`] its `DbgValue`s refer to.
//!
//! How values live: every IR value of type `iN` (N ≤ 64) or `ptr` has one
//! general-purpose virtual register, 32 bits wide for N ≤ 32 and 64 bits
//! otherwise; a `float` or `double` has one xmm virtual register (see
//! [`fp`]); aggregates and `i128` have one register per scalar leaf (see
//! [`aggregate`]). The
//! bits above N in a narrow value's register are unspecified: operations
//! that look at them (comparisons of odd widths, division, right shifts,
//! extensions, `signext`/`zeroext` arguments and returns, `i1` stores)
//! extend first. Constants, allocas, and addresses computed by GEPs whose
//! only users are loads and stores (or, with at most one 64-bit variable
//! index, also constant-offset GEPs folded in turn) are not given registers:
//! they are folded into the instructions that use them (immediates, `[slot +
//! disp]`, `[base + index*scale + disp]`).
//!
//! Control flow: MIR block `i` is IR block `i`; critical edges into blocks
//! with phis get a new block each, appended after the IR blocks. Phis are
//! eliminated with two-phase copies on each incoming edge (so swaps are
//! right). A compare whose only user is a branch or select in its block is
//! fused into it (`cmp; jcc` / `cmp; cmov`); a `switch` becomes a binary
//! search over its sorted cases, dense runs of cases being PC-relative jump
//! tables (32-bit entries relative to the table). Edge blocks are laid out
//! right after the block they leave.
//!
//! The selector is one [`Selector`] state split by concern: this module
//! (values, operands, the instruction dispatch), [`calls`] (SysV argument
//! and return placement), [`memory`] (addresses), [`odd_width`] (loads and stores of integers
//! of any width), [`arith`] (integer
//! arithmetic and compares), [`fp`] (float and double with SSE2), [`x87`]
//! (`x86_fp80` with the x87 unit, its values two leaves),
//! [`aggregate`] and [`wide`] (multi-register values, `i128`), [`varargs`]
//! (variadic definitions),
//! [`intrinsics`] ([`x86_intrinsics`] for `llvm.x86.*` and the thread
//! pointer), [`control`] (branches, phis, switches; [`late_operands`]: an
//! operation only a chain's later test reads is selected at it), [`records`]
//! (debug records), [`data`] (global initialisers).
//!
//! Promises: every machine instruction carries the IR instruction's
//! DILocation as `loc = LocId + 1` (0: none); debug records become
//! `DbgValue`s at their position and never influence code selection
//! (`.text` is identical with `debug_info` off); a parameter's registers are
//! copied out at entry before any debug value names it; anything this
//! selector does not support is a [`Diagnostic`] naming it, never a panic.

mod absorb;
mod aggregate;
mod arith;
mod asm;
mod atomic;
mod atomic16;
mod calls;
mod control;
mod data;
pub mod debug;
mod eh;
mod flags;
mod fold;
mod fp;
mod intrinsics;
mod late_operands;
mod memory;
mod odd_width;
mod records;
mod relative;
pub(crate) mod stack;
mod tls;
mod varargs;
mod vector;

pub(crate) use vector::x86_vector_form;
mod wide;
mod x86_intrinsics;
mod x87;

use std::collections::HashMap;

use dwarfsmith_emit::model::Op;

use crate::codegen::mir::{
    self, Address, AddressBase, AluOp, BlockId as MBlock, CallTarget, Cond, DbgOperand,
    DbgOperands, DbgValue, FpOp, Inst as MInst, InstKind as K, Reg, Ri, Rm, Rmi, ShiftAmount,
    ShiftOp, StackSlotId, StackSlotKind, UnaryOp, Width,
};
use crate::error::Diagnostic;
use crate::ir::{
    self, BinOp, CastOp, ConstExpr, Constant, FuncId, GlobalRef, ICmpPred, InstId, InstKind,
    Module, RecordKind, Type, Value,
};
use crate::x86::abi::{
    ARGUMENT_REGISTERS, CALLER_SAVED, RETURN_REGISTER, STACK_ARGUMENT_SIZE, XMM_ARGUMENT_REGISTERS,
    XMM_RETURN_REGISTER,
};
use crate::x86::{Gpr, PhysReg};

use atomic::is_atomic;
pub use data::{
    attach_aliases, block_address_of, comdat_group, select_data, symbol_binding, weak_references,
};
pub use debug::{ArgType, DebugExpr, DebugTable, VariableKey};
pub use eh::EhTables;

/// What instruction selection makes of one function.
#[derive(Clone, Debug)]
pub struct SelectedFunction {
    /// The machine function over virtual registers.
    pub mir: mir::Function,
    /// The meaning of its `DbgValue`s' `variable` and `expr` numbers.
    pub debug: DebugTable,
    /// The MIR block of each IR block (where a `blockaddress` points).
    pub ir_blocks: Vec<MBlock>,
    /// The exception-handling tables, for a function with landing pads
    /// (their blocks are MIR blocks).
    pub eh: Option<EhTables>,
}

/// Options of instruction selection.
#[derive(Clone, Copy, Debug)]
pub struct IselOptions {
    /// Turn debug records into `DbgValue`s (the code is the same either way).
    pub debug_info: bool,
}

/// The MIR `loc` of an IR location (`LocId + 1`; 0 for none).
pub fn mir_loc(loc: Option<ir::LocId>) -> u32 {
    loc.map_or(0, |l| l.0 + 1)
}

/// The IR location of a MIR `loc`.
pub fn ir_loc(loc: u32) -> Option<ir::LocId> {
    loc.checked_sub(1).map(ir::LocId)
}

/// Selects machine instructions for the function `func` of `module`.
pub fn select_function(
    module: &Module,
    func: FuncId,
    options: &IselOptions,
) -> Result<SelectedFunction, Diagnostic> {
    let f = module.function(func);
    let mut s = Selector::new(module, f, options);
    // Every refusal names the function it is in, as the gate's do.
    s.run().map_err(|mut d| {
        d.message = format!("function @{}: {}", f.name, d.message);
        d
    })?;
    let eh = s.eh.take().map(|mut tables| {
        for (block, _) in &mut tables.landing_pads {
            *block = s.ir_blocks[block.0 as usize];
        }
        tables
    });
    s.mir.debug_overlapping = s.debug.overlapping_variables();
    s.mir.debug_value_bits = s
        .debug
        .exprs
        .iter()
        .map(|expr| expr.args.iter().map(|arg| arg.bits).max().unwrap_or(64))
        .collect();
    Ok(SelectedFunction {
        mir: s.mir,
        debug: s.debug,
        ir_blocks: s.ir_blocks,
        eh,
    })
}

/// A type as .ll text writes it, for diagnostics.
fn type_name(module: &Module, ty: &Type) -> String {
    let list = |types: &[Type]| {
        types
            .iter()
            .map(|t| type_name(module, t))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match ty {
        Type::Void => "void".into(),
        Type::Int(bits) => format!("i{bits}"),
        Type::Ptr => "ptr".into(),
        Type::Array { len, elem } => format!("[{len} x {}]", type_name(module, elem)),
        Type::Named(id) => format!("%{}", module.structs[id.0 as usize].name),
        Type::Struct {
            fields,
            packed: false,
        } => format!("{{ {} }}", list(fields)),
        Type::Struct {
            fields,
            packed: true,
        } => format!("<{{ {} }}>", list(fields)),
        Type::Function(f) => format!("{} ({})", type_name(module, &f.ret), list(&f.params)),
        Type::Label => "label".into(),
        Type::Metadata => "metadata".into(),
        Type::Float(kind) => kind.name().into(),
        Type::Vector { len, elem } => format!("<{len} x {}>", type_name(module, elem)),
    }
}

/// The container width of an integer of `bits` bits.
fn container(bits: u32) -> Width {
    if bits <= 32 {
        Width::W32
    } else {
        Width::W64
    }
}

/// The two-address ALU instruction computing `op` (`None` for the
/// operations that are not one: multiplication, division, shifts).
fn alu_op(op: BinOp) -> Option<AluOp> {
    match op {
        BinOp::Add => Some(AluOp::Add),
        BinOp::Sub => Some(AluOp::Sub),
        BinOp::And => Some(AluOp::And),
        BinOp::Or => Some(AluOp::Or),
        BinOp::Xor => Some(AluOp::Xor),
        _ => None,
    }
}

/// The immediate operand giving constant `c` to an instruction of
/// `width`, as that width reads it (sign-extended from 32 bits at 64).
fn immediate(c: i64, width: Width) -> Option<i32> {
    match width {
        Width::W8 => Some(i32::from(c as i8)),
        Width::W16 => Some(i32::from(c as i16)),
        Width::W32 => Some(c as i32),
        Width::W64 => i32::try_from(c).ok(),
    }
}

/// The exact machine width of `bits`, if there is one.
fn exact_width(bits: u32) -> Option<Width> {
    match bits {
        8 => Some(Width::W8),
        16 => Some(Width::W16),
        32 => Some(Width::W32),
        64 => Some(Width::W64),
        _ => None,
    }
}

/// What [`count_uses`] finds per instruction.
struct UseCounts {
    /// The number of non-debug uses.
    uses: Vec<u32>,
    /// Every use is a load or store address.
    address_only: Vec<bool>,
    /// The uses that are a phi's incoming value.
    phi_uses: Vec<u32>,
    /// The uses that are neither a load or store address nor a phi's
    /// incoming value.
    other_uses: Vec<u32>,
    /// The user, if there is exactly one.
    user: Vec<Option<InstId>>,
}

/// Counts the uses of every instruction of `f`; the instructions in `skip`
/// count as no instruction's user.
fn count_uses(f: &ir::Function, skip: &HashMap<InstId, bool>) -> UseCounts {
    let n = f.insts.len();
    let mut uses = vec![0u32; n];
    let mut address_only = vec![true; n];
    let mut user = vec![None; n];
    let mut phi_uses = vec![0u32; n];
    let mut other_uses = vec![0u32; n];
    for block in &f.blocks {
        for &id in block.insts.iter().filter(|id| !skip.contains_key(id)) {
            let inst = f.inst(id);
            let ptr_operand = match &inst.kind {
                InstKind::Load { ptr, .. } | InstKind::Store { ptr, .. } => Some(ptr),
                _ => None,
            };
            let operands = inst.operands();
            for (i, op) in operands.iter().enumerate() {
                if let Value::Inst(d) = op {
                    let d = d.0 as usize;
                    uses[d] += 1;
                    user[d] = Some(id);
                    // A store's value operand comes first; its address last.
                    let is_address = ptr_operand.is_some_and(|p| std::ptr::eq(*op, p))
                        && (i == operands.len() - 1);
                    if !is_address {
                        address_only[d] = false;
                        if matches!(inst.kind, InstKind::Phi { .. }) {
                            phi_uses[d] += 1;
                        } else {
                            other_uses[d] += 1;
                        }
                    }
                }
            }
        }
    }
    UseCounts {
        uses,
        address_only,
        phi_uses,
        other_uses,
        user,
    }
}

/// How an instruction's result is produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lowering {
    /// Selected at its position into its virtual register.
    Normal,
    /// A compare fused into its only user (a branch, a select, or an
    /// `and`/`or` lowered as [`Lowering::BranchLogic`]).
    FusedCompare,
    /// An `i1` `and`/`or` (or its `select` form) whose only user is a
    /// branch: lowered as a chain of conditional jumps (see [`control`]).
    BranchLogic,
    /// A load read by its only user, a compare, as a memory operand (see
    /// [`fold`]).
    FoldedLoad,
    /// A GEP folded into the addresses of the loads and stores using it.
    FoldedAddress,
    /// A load, or the `add`/`sub`/logic instruction using it, whose result
    /// only a store back to the same address reads: the store is `op
    /// [mem], src` (see [`fold`]).
    InPlace,
    /// An `and` whose only user reads its operands instead: a compare
    /// with zero as `test`, a shift as its count (see [`absorb`]).
    Absorbed,
    /// An alloca: a stack slot, used as an address operand.
    Slot(StackSlotId),
}

/// A GEP index multiplied by a stride no addressing mode scales by: the
/// index register, its bits, the stride, and the register holding the
/// product.
type ScaledIndex = ((Reg, u32, u64), Reg);

/// The state of selecting one function.
struct Selector<'a> {
    module: &'a Module,
    f: &'a ir::Function,
    options: &'a IselOptions,
    mir: mir::Function,
    debug: DebugTable,
    /// The virtual register of each argument.
    args: Vec<Reg>,
    /// The virtual register of each instruction result (`None` for void).
    values: Vec<Option<Reg>>,
    lowering: Vec<Lowering>,
    /// Block of each instruction.
    inst_block: Vec<u32>,
    /// Distinct successors of each IR block.
    succs: Vec<Vec<ir::BlockId>>,
    /// Compares that read their predecessor's flags (see [`flags`]), with
    /// whether they read the operands swapped.
    reused_flags: HashMap<InstId, bool>,
    /// Compares selected as the `sub` their branch's successor opens with,
    /// or as the ALU instruction whose result they test against zero, with
    /// that instruction (see [`flags`]).
    flag_setting_subs: HashMap<InstId, InstId>,
    /// The instructions of `flag_setting_subs` and `late_operands`,
    /// selected by their compare.
    selected_by_compares: std::collections::HashSet<InstId>,
    /// Operations selected right before a later test of a branch chain,
    /// their only user (see [`late_operands`]).
    late_operands: HashMap<InstId, Vec<InstId>>,
    /// The scaled GEP indices computed in a MIR block so far (see
    /// [`Selector::scaled_index`]).
    scaled_indices: (MBlock, Vec<ScaledIndex>),
    /// Edge blocks made for critical edges (pred, succ) → MIR block.
    edge_blocks: HashMap<(u32, u32), MBlock>,
    /// Edge blocks in creation order, with the block they leave.
    edge_order: Vec<(u32, MBlock)>,
    /// The MIR block instructions are appended to.
    current: MBlock,
    /// The `loc` given to instructions selected now.
    loc: u32,
    /// Where diagnostics point.
    pos: crate::error::Pos,
    /// The member registers of each aggregate-valued instruction (see
    /// [`intrinsics`]).
    aggregates: HashMap<u32, Vec<Reg>>,
    /// The leaf registers of each multi-register parameter (see [`aggregate`]).
    arg_leaves: HashMap<u32, Vec<Reg>>,
    /// The register save area and counts of a variadic function (see [`varargs`]).
    varargs: Option<varargs::VarargsFrame>,
    /// The incoming stack displacement of each `byval` parameter's copy.
    byval_homes: HashMap<u32, u32>,
    /// Scalar parameters passed on the stack: their offset into the
    /// incoming argument area and width (their debug values' home).
    stack_arg_homes: HashMap<u32, (u32, Width)>,
    /// The `sret` parameter and the frame slot its pointer is kept in (the
    /// return reloads it into rax; debug info finds the variable through it).
    sret_slot: Option<(u32, StackSlotId)>,
    /// The MIR block IR block 0's code goes into: block 0, or the block
    /// after a variadic function's register saves (see [`varargs`]).
    entry_code: MBlock,
    /// A tail jump ended the current block: the `ret` after it is dropped.
    after_tail_jump: bool,
    /// The `lea` of each dynamic alloca, completed at the end (see [`stack`]).
    dynamic_allocas: Vec<(MBlock, usize)>,
    /// The xmm registers (16 bytes each) of each vector-valued instruction
    /// (see [`vector`]).
    vector_parts: HashMap<u32, Vec<Reg>>,
    /// The scratch slots of the vector memory fallback (see [`vector`]).
    vector_scratch: Vec<StackSlotId>,
    /// The MIR block of each IR block, once laid out.
    ir_blocks: Vec<MBlock>,
    /// The register each phi of an `indirectbr` destination receives its
    /// incoming value in (see [`control`]).
    phi_incoming: HashMap<u32, Reg>,
    /// The instructions using each instruction's result (once per use),
    /// built once, on first need (see [`vector`]'s saturating subtract).
    users: std::cell::OnceCell<Vec<Vec<InstId>>>,
    /// The exception-handling tables of a function with landing pads
    /// (see [`eh`]).
    eh: Option<EhTables>,
    /// The scratch slot of the x87 sequences (see [`x87`]).
    x87_scratch: Option<StackSlotId>,
    /// Debug records that follow a fused compare with a source line of its
    /// own, with their locations, held until the compare is emitted at its
    /// user (see [`Selector::hold_or_lower_records`]).
    held_records: Vec<(&'a ir::DebugRecord, u32)>,
    /// The fused compare the held records wait for.
    holding_for: Option<InstId>,
    /// Debug records lowered in front of an instruction that is selected
    /// later, at its compare ([`Selector::selected_by_compares`]), with
    /// their locations: lowered again once it is (see
    /// [`Selector::lower_record_in_place`]).
    waiting_records: Vec<(&'a ir::DebugRecord, u32)>,
    /// The instructions of [`Selector::selected_by_compares`] selected so
    /// far.
    selected_late: std::collections::HashSet<InstId>,
}

impl<'a> Selector<'a> {
    fn new(module: &'a Module, f: &'a ir::Function, options: &'a IselOptions) -> Self {
        Selector {
            module,
            f,
            options,
            mir: mir::Function::new(&f.name),
            debug: DebugTable::default(),
            args: Vec::new(),
            values: Vec::new(),
            lowering: vec![Lowering::Normal; f.insts.len()],
            inst_block: vec![u32::MAX; f.insts.len()],
            succs: ir::cfg::successors(f),
            reused_flags: HashMap::new(),
            flag_setting_subs: HashMap::new(),
            selected_by_compares: std::collections::HashSet::new(),
            late_operands: HashMap::new(),
            scaled_indices: (MBlock(0), Vec::new()),
            edge_blocks: HashMap::new(),
            edge_order: Vec::new(),
            current: MBlock(0),
            loc: 0,
            pos: f.pos,
            aggregates: HashMap::new(),
            arg_leaves: HashMap::new(),
            varargs: None,
            byval_homes: HashMap::new(),
            stack_arg_homes: HashMap::new(),
            after_tail_jump: false,
            entry_code: MBlock(0),
            sret_slot: None,
            dynamic_allocas: Vec::new(),
            vector_parts: HashMap::new(),
            vector_scratch: Vec::new(),
            ir_blocks: Vec::new(),
            users: std::cell::OnceCell::new(),
            phi_incoming: HashMap::new(),
            eh: None,
            x87_scratch: None,
            held_records: Vec::new(),
            holding_for: None,
            waiting_records: Vec::new(),
            selected_late: std::collections::HashSet::new(),
        }
    }

    fn error(&self, message: String) -> Diagnostic {
        Diagnostic {
            file: String::new(),
            pos: self.pos,
            message,
        }
    }

    fn emit(&mut self, kind: K) {
        let loc = self.loc;
        self.mir.blocks[self.current.0 as usize]
            .insts
            .push(MInst::new(kind, loc));
    }

    fn vreg(&mut self, width: Width) -> Reg {
        self.mir.new_vreg(width)
    }

    /// The bit width of a value's type (`ptr` is 64); an error for other types.
    fn bits_of_type(&self, ty: &Type) -> Result<u32, Diagnostic> {
        match ty {
            Type::Int(bits) if *bits <= 64 => Ok(*bits),
            Type::Ptr => Ok(64),
            other => Err(self.error(format!(
                "unsupported type {} in code generation",
                type_name(self.module, other)
            ))),
        }
    }

    fn bits_of(&self, v: &Value) -> Result<u32, Diagnostic> {
        self.bits_of_type(&self.f.value_type(v))
    }

    fn run(&mut self) -> Result<(), Diagnostic> {
        let f = self.f;
        for _ in &f.blocks {
            self.mir.new_block();
        }
        for (b, block) in f.blocks.iter().enumerate() {
            for &id in &block.insts {
                self.inst_block[id.0 as usize] = b as u32;
            }
        }
        // One virtual register per value-producing instruction.
        self.values = Vec::with_capacity(f.insts.len());
        for inst in &f.insts {
            let reg = self
                .class_of_type(&inst.ty)
                .map(|(class, width)| self.mir.new_vreg_of(class, width));
            self.values.push(reg);
        }
        self.allocate_leaves();
        self.assign_vector_registers()?;
        self.classify();
        self.prepare_indirect_destinations();
        self.eh = self.number_eh_types()?;
        self.lower_params()?;
        for b in 0..f.blocks.len() {
            self.current = if b == 0 {
                self.entry_code
            } else {
                MBlock(b as u32)
            };
            for &id in &f.blocks[b].insts {
                let inst = f.inst(id);
                self.pos = inst.pos;
                self.loc = mir_loc(inst.dbg);
                if self.options.debug_info {
                    self.hold_or_lower_records(id)?;
                }
                self.loc = mir_loc(inst.dbg);
                self.lower_inst(id)?;
            }
            self.release_held_records()?;
            self.waiting_records.clear();
        }
        self.finish_dynamic_allocas();
        self.layout();
        Ok(())
    }

    /// Lowers the debug records in front of instruction `id`, or holds them
    /// while a fused compare with a source line of its own waits to be
    /// emitted at its user. The compare's code, and its line's row, come
    /// at the user (`cmp; jcc` at the block's end), after the instructions
    /// between; the records between take effect in IR order after the
    /// compare's line starts, so they wait for it (csmith 201076: a loop
    /// counter's increment, selected before the fused loop test, showed the
    /// next value at the test's line). They are let go earlier, in front
    /// of an instruction with another source line, whose row comes first.
    /// A value a held record no longer finds (its register reused) leaves
    /// the variable without a location until then, never with a wrong one.
    fn hold_or_lower_records(&mut self, id: InstId) -> Result<(), Diagnostic> {
        let f = self.f;
        let inst = f.inst(id);
        let line = |dbg: Option<ir::LocId>| dbg.map_or(0, |l| self.module.debug.location(l).line);
        if let Some(compare) = self.holding_for {
            let own = line(inst.dbg);
            if own != 0 && own != line(f.inst(compare).dbg) {
                self.release_held_records()?;
            }
        }
        for record in &inst.records {
            if self.holding_for.is_some() {
                self.held_records.push((record, self.loc));
            } else {
                self.lower_record_in_place(record)?;
            }
        }
        if self.holding_for.is_none()
            && self.lowering[id.0 as usize] == Lowering::FusedCompare
            && line(inst.dbg) != 0
        {
            self.holding_for = Some(id);
        }
        Ok(())
    }

    /// Lowers the held debug records.
    fn release_held_records(&mut self) -> Result<(), Diagnostic> {
        self.holding_for = None;
        let held = std::mem::take(&mut self.held_records);
        self.lower_records_at_their_locations(held)
    }

    /// Lowers `records` in order, each at its own location
    /// ([`Selector::lower_record_in_place`]).
    fn lower_records_at_their_locations(
        &mut self,
        records: Vec<(&'a ir::DebugRecord, u32)>,
    ) -> Result<(), Diagnostic> {
        let loc = self.loc;
        for (record, record_loc) in records {
            self.loc = record_loc;
            self.lower_record_in_place(record)?;
        }
        self.loc = loc;
        Ok(())
    }

    /// Lowers a debug record where it stands in the IR. A record naming an
    /// instruction selected later, at its compare (a flag-setting `and` at
    /// its loop test, see [`flags`]), names a register not yet written
    /// there: allocation leaves the variable without a location until then
    /// (its old value shown there would be one the source no longer gives
    /// it), and the record is lowered again right after that instruction
    /// ([`Selector::lower_waiting_records`]), as SelectionDAG emits a debug
    /// value after the node it names; unless another record of the variable
    /// comes first (bits.c's `popcount32`: `x &= x - 1` selected at `while
    /// (x)` left `x` without a location after the loop).
    fn lower_record_in_place(&mut self, record: &'a ir::DebugRecord) -> Result<(), Diagnostic> {
        let debug = &self.module.debug;
        let inlined_at = debug.location(record.loc).inlined_at;
        self.waiting_records.retain(|(waiting, _)| {
            waiting.variable != record.variable
                || debug.location(waiting.loc).inlined_at != inlined_at
        });
        self.lower_record(record)?;
        if self.names_unselected_late(record) {
            self.waiting_records.push((record, self.loc));
        }
        Ok(())
    }

    /// Whether `record` names an instruction selected later, at its
    /// compare, that is not selected yet.
    fn names_unselected_late(&self, record: &ir::DebugRecord) -> bool {
        record.locations.iter().any(|v| {
            matches!(v, Value::Inst(id)
                if self.selected_by_compares.contains(id) && !self.selected_late.contains(id))
        })
    }

    /// Notes that `id`, an instruction selected at its compare, is now
    /// selected, and lowers again the waiting records it was the last
    /// unselected value of, each at its own location.
    pub(super) fn lower_waiting_records(&mut self, id: InstId) -> Result<(), Diagnostic> {
        self.selected_late.insert(id);
        let (ready, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.waiting_records)
            .into_iter()
            .partition(|(record, _)| !self.names_unselected_late(record));
        self.waiting_records = waiting;
        self.lower_records_at_their_locations(ready)
    }

    /// Moves each edge block right after the block it leaves (keeping live
    /// ranges local), adds a jump where a block no longer falls through to
    /// its old successor, drops jumps to the next block, and renumbers
    /// every branch target.
    fn layout(&mut self) {
        let total = self.mir.blocks.len();
        let mut after: Vec<Vec<u32>> = vec![Vec::new(); self.f.blocks.len()];
        for &(pred, block) in &self.edge_order {
            after[pred as usize].push(block.0);
        }
        let mut order = Vec::with_capacity(total);
        for (b, edges) in after.iter().enumerate() {
            order.push(b as u32);
            order.extend_from_slice(edges);
        }
        let mut new_id = vec![0u32; total];
        for (position, &old) in order.iter().enumerate() {
            new_id[old as usize] = position as u32;
        }
        let mut old_blocks: Vec<Option<mir::Block>> = std::mem::take(&mut self.mir.blocks)
            .into_iter()
            .map(Some)
            .collect();
        for (position, &old) in order.iter().enumerate() {
            let mut block = old_blocks[old as usize].take().unwrap_or_default();
            let ends = block
                .insts
                .iter()
                .rev()
                .find(|i| !i.is_debug())
                .map(|i| &i.kind);
            let falls_through = !matches!(
                ends,
                Some(
                    K::Jmp { .. }
                        | K::JmpIndirect { .. }
                        | K::Ret { .. }
                        | K::TailJump { .. }
                        | K::Ud2
                )
            );
            let next_old = old as usize + 1;
            if falls_through && next_old < total && new_id[next_old] != position as u32 + 1 {
                let loc = block.insts.last().map_or(0, |i| i.loc);
                block.insts.push(MInst::new(
                    K::Jmp {
                        target: MBlock(next_old as u32),
                    },
                    loc,
                ));
            }
            for inst in &mut block.insts {
                match &mut inst.kind {
                    K::Jmp { target }
                    | K::Jcc { target, .. }
                    | K::Call {
                        unwind: Some(target),
                        ..
                    } => {
                        *target = MBlock(new_id[target.0 as usize]);
                    }
                    _ => {}
                }
            }
            let next = MBlock(position as u32 + 1);
            // `jcc next; jmp other` becomes `j!cc other`, falling through.
            if let [.., a, b] = block.insts.as_mut_slice() {
                if let (K::Jcc { cond, target }, K::Jmp { target: other }) = (&mut a.kind, &b.kind)
                {
                    if *target == next {
                        *cond = cond.invert();
                        *target = *other;
                        b.kind = K::Jmp { target: next };
                    }
                }
            }
            if let Some(K::Jmp { target }) = block.insts.last().map(|i| &i.kind) {
                if *target == next {
                    block.insts.pop();
                }
            }
            self.mir.blocks.push(block);
        }
        for table in &mut self.mir.jump_tables {
            for target in table.iter_mut() {
                *target = MBlock(new_id[target.0 as usize]);
            }
        }
        self.ir_blocks = (0..self.f.blocks.len())
            .map(|b| MBlock(new_id[b]))
            .collect();
    }

    /// Decides which instructions are fused or folded into their users,
    /// from their non-debug uses only (so debug info never changes code).
    fn classify(&mut self) {
        let f = self.f;
        let UseCounts {
            uses,
            address_only,
            phi_uses,
            other_uses,
            user,
        } = count_uses(f, &HashMap::new());
        for block in &f.blocks {
            for &id in &block.insts {
                let i = id.0 as usize;
                let inst = f.inst(id);
                match &inst.kind {
                    InstKind::Alloca { .. } => {}
                    // A vector compare is a mask, never flags (see [`vector`]).
                    InstKind::ICmp { .. } if uses[i] == 1 && inst.ty == Type::Int(1) => {
                        let u = user[i].unwrap_or(id);
                        let same_block = self.inst_block[u.0 as usize] == self.inst_block[i];
                        let fusable = match &f.inst(u).kind {
                            InstKind::CondBr { cond, .. } => cond == &Value::Inst(id),
                            InstKind::Select {
                                cond,
                                if_true,
                                if_false,
                            } => {
                                cond == &Value::Inst(id)
                                    && if_true != &Value::Inst(id)
                                    && if_false != &Value::Inst(id)
                            }
                            _ => false,
                        };
                        if same_block && fusable {
                            self.lowering[i] = Lowering::FusedCompare;
                        }
                    }
                    InstKind::Gep { .. } if uses[i] > 0 && address_only[i] => {
                        self.lowering[i] = Lowering::FoldedAddress;
                    }
                    InstKind::Gep { .. }
                        if uses[i] > 0
                            && other_uses[i] == 0
                            && phi_uses[i] == 1
                            && self.read_by_a_later_phi(id)
                            && self.one_lea_address(id) =>
                    {
                        self.lowering[i] = Lowering::FoldedAddress;
                    }
                    _ => {}
                }
            }
        }
        self.classify_address_bases(&uses);
        self.classify_branch_logic(&uses, &user);
        self.classify_absorbed(&uses, &user);
        self.reused_flags = self.classify_reused_flags().into_iter().collect();
        if self.reused_flags.is_empty() {
            self.classify_folded_loads(&uses, &user);
        } else {
            // A compare reading flags reads no operand: a load it shares
            // with the compare that set them may still be folded there.
            let counts = count_uses(f, &self.reused_flags);
            self.classify_folded_loads(&counts.uses, &counts.user);
        }
        self.classify_in_place_updates(&uses, &user);
        self.flag_setting_subs = self.classify_flag_setting_subs().into_iter().collect();
        let deferred = self.classify_flag_setting_alus();
        self.flag_setting_subs.extend(deferred);
        self.selected_by_compares = self.flag_setting_subs.values().copied().collect();
        self.late_operands = self.classify_late_operands(&uses, &user);
        let late = self.late_operands.values().flatten().copied();
        self.selected_by_compares.extend(late);
        self.classify_scaled_adds(&uses, &user);
        // Allocas become stack slots (entry or not: the frame is fixed).
        for block in &f.blocks {
            for &id in &block.insts {
                let kind = &f.inst(id).kind;
                if self.needs_stack_code(kind) {
                    continue;
                }
                if let InstKind::Alloca {
                    allocated,
                    count,
                    align,
                } = kind
                {
                    let count = count
                        .as_ref()
                        .and_then(|c| c.as_const()?.zext_value())
                        .unwrap_or(1) as u64;
                    let size = self.module.size_of(allocated).saturating_mul(count).max(1);
                    let align = u64::from(align.unwrap_or(1))
                        .max(self.module.align_of(allocated))
                        .min(16);
                    let slot = self.mir.new_stack_slot(
                        u32::try_from(size).unwrap_or(u32::MAX),
                        align as u32,
                        StackSlotKind::Alloca,
                    );
                    self.lowering[id.0 as usize] = Lowering::Slot(slot);
                }
            }
        }
    }

    /// Folds a GEP whose every use is a load or store address or the base
    /// of a folded GEP with constant indices (`p = base + i; load p; load
    /// p - 1`): each use reads `[base + i + disp]`, as LLVM's selection
    /// sinks address arithmetic into its users, so no `lea` keeps `p` in a
    /// register. Only a GEP with at most one variable index, of 64 bits
    /// (no extension repeated per use), qualifies. A GEP with constant
    /// indices only (a field's address, `p = base + 0x20000`) may also be
    /// the base of folded GEPs with a variable index (`load p[i]` reads
    /// `[base + i*2 + 0x20000]`): the one index register is theirs, and
    /// only `base` stays live, not `p` beside it.
    fn classify_address_bases(&mut self, uses: &[u32]) {
        let f = self.f;
        let mut foldable = vec![0u32; f.insts.len()];
        // Uses as the base of a folded GEP with a variable index.
        let mut indexed = vec![false; f.insts.len()];
        for block in &f.blocks {
            for &id in &block.insts {
                match &f.inst(id).kind {
                    InstKind::Load {
                        ptr: Value::Inst(g),
                        ..
                    }
                    | InstKind::Store {
                        ptr: Value::Inst(g),
                        ..
                    } => foldable[g.0 as usize] += 1,
                    InstKind::Gep {
                        base: Value::Inst(g),
                        indices,
                        ..
                    } if self.lowering[id.0 as usize] == Lowering::FoldedAddress => {
                        foldable[g.0 as usize] += 1;
                        if indices.iter().any(|x| self.const_int(x).is_none()) {
                            indexed[g.0 as usize] = true;
                        }
                    }
                    _ => {}
                }
            }
        }
        for block in &f.blocks {
            for &id in &block.insts {
                let i = id.0 as usize;
                let InstKind::Gep { indices, .. } = &f.inst(id).kind else {
                    continue;
                };
                let variable: Vec<&Value> = indices
                    .iter()
                    .filter(|x| self.const_int(x).is_none())
                    .collect();
                if self.lowering[i] == Lowering::Normal
                    && f.inst(id).ty == Type::Ptr
                    && uses[i] > 0
                    && foldable[i] == uses[i]
                    && variable.len() <= usize::from(!indexed[i])
                    && variable.iter().all(|x| f.value_type(x) == Type::Int(64))
                {
                    self.lowering[i] = Lowering::FoldedAddress;
                }
            }
        }
    }

    /// Whether the phi reading `id` stands in a block after `id`'s (a
    /// loop's exit, not its header): its `lea` on that edge then runs
    /// less often than one where `id` stands. On a back edge it would run
    /// as often, and only move the allocator's choices.
    fn read_by_a_later_phi(&self, id: InstId) -> bool {
        let f = self.f;
        self.users(id).iter().any(|&u| {
            matches!(f.inst(u).kind, InstKind::Phi { .. })
                && self.inst_block[u.0 as usize] > self.inst_block[id.0 as usize]
        })
    }

    /// Whether GEP `id`'s address is one addressing mode of its own:
    /// constant indices (its base's address plus a displacement), or one
    /// variable index, of 64 bits (no extension), scaled by 1, 2, 4 or 8
    /// (no multiply), over a base that is no GEP or constant (whose own
    /// index or symbol would take the index slot). Such a
    /// GEP folded into its loads and stores costs one `lea` where a phi
    /// reads it (on that edge, see [`control`]), which is what selecting it
    /// into a register costs where it stands: a GEP read by addresses and
    /// one phi's incoming value is folded (the pointer a loop's exit
    /// computes from `scan + k`, zlib's `longest_match`), as LLVM's
    /// CodeGenPrepare sinks such address arithmetic into each user.
    fn one_lea_address(&self, id: InstId) -> bool {
        let f = self.f;
        let InstKind::Gep {
            source,
            base,
            indices,
            ..
        } = &f.inst(id).kind
        else {
            return false;
        };
        let plain_base = match base {
            Value::Arg(_) => true,
            Value::Inst(b) => !matches!(f.inst(*b).kind, InstKind::Gep { .. }),
            Value::Const(_) => false,
        };
        let Some(steps) = self.module.gep_steps(source, indices) else {
            return false;
        };
        let mut variable = 0;
        for step in steps {
            if let ir::GepStep::Scaled { index, stride } = step {
                if self.const_int(&indices[index]).is_some() {
                    continue;
                }
                variable += 1;
                if f.value_type(&indices[index]) != Type::Int(64)
                    || !matches!(stride, 1 | 2 | 4 | 8)
                {
                    return false;
                }
            }
        }
        f.inst(id).ty == Type::Ptr && (variable == 0 || variable == 1 && plain_base)
    }

    // ---- operands -------------------------------------------------------

    /// The constant integer value of a value, if it is one (null is 0).
    fn const_int(&self, v: &Value) -> Option<i64> {
        match v {
            Value::Const(Constant::Int { value, .. }) => Some(*value as i64),
            Value::Const(Constant::Null) => Some(0),
            _ => None,
        }
    }

    /// A value in a register (materialising constants and addresses).
    fn reg(&mut self, v: &Value) -> Result<Reg, Diagnostic> {
        match v {
            Value::Arg(n) => Ok(self.args[*n as usize]),
            Value::Inst(id) => match self.lowering[id.0 as usize] {
                Lowering::Normal => self.values[id.0 as usize]
                    .ok_or_else(|| self.error("use of a value without a register".into())),
                Lowering::FusedCompare
                | Lowering::BranchLogic
                | Lowering::Absorbed
                | Lowering::FoldedLoad
                | Lowering::InPlace => {
                    Err(self.error("internal: a fused value used as a register".into()))
                }
                Lowering::Slot(_) | Lowering::FoldedAddress => {
                    let addr = self.address(v)?;
                    let dst = self.vreg(Width::W64);
                    self.emit(K::Lea { dst, addr });
                    Ok(dst)
                }
            },
            Value::Const(c) => self.const_reg(c),
        }
    }

    fn const_reg(&mut self, c: &Constant) -> Result<Reg, Diagnostic> {
        if let Some(size) = self.fp_size_of_type(&c.ty())? {
            let bits = self.fp_const_bits(c, size).ok_or_else(|| {
                self.error(format!(
                    "unsupported floating-point constant {c:?} in code generation"
                ))
            })?;
            return Ok(self.fp_const_reg(size, bits));
        }
        match c {
            Constant::Int { bits, value } => {
                let width = container(*bits);
                let dst = self.vreg(width);
                self.emit(K::MovImm {
                    dst,
                    imm: *value as i64,
                    width,
                });
                Ok(dst)
            }
            Constant::Null | Constant::Undef(_) | Constant::Poison(_) | Constant::Zero(_) => {
                let width = match c.ty() {
                    Type::Int(bits) => container(bits),
                    _ => Width::W64,
                };
                let dst = self.vreg(width);
                self.emit(K::MovImm { dst, imm: 0, width });
                Ok(dst)
            }
            Constant::BlockAddress { func, block } => {
                let dst = self.vreg(Width::W64);
                let label = data::block_address_label(*func, *block);
                self.emit(K::Lea {
                    dst,
                    addr: Address {
                        base: AddressBase::Symbol(label),
                        index: None,
                        disp: 0,
                    },
                });
                Ok(dst)
            }
            Constant::Global(_) | Constant::Expr(_) => {
                if let Constant::Expr(e) = c {
                    match &**e {
                        ConstExpr::Cast { value, .. } => return self.const_reg(value),
                        ConstExpr::Binary { op, lhs, rhs, .. } => {
                            return self.const_binary_reg(*op, lhs, rhs)
                        }
                        ConstExpr::Gep { .. } => {}
                    }
                }
                let addr = self.const_address(c)?;
                let dst = self.vreg(Width::W64);
                self.emit(K::Lea { dst, addr });
                Ok(dst)
            }
            other => Err(self.error(format!(
                "unsupported constant operand {other:?} in code generation"
            ))),
        }
    }

    /// A constant expression `lhs op rhs` over addresses and integers
    /// (`sub (i64 0, i64 ptrtoint (ptr @g to i64))`, as clang -O2 folds a
    /// pointer difference), computed at run time; an error for operations
    /// other than add, sub, mul and the bitwise ones.
    fn const_binary_reg(
        &mut self,
        op: BinOp,
        lhs: &Constant,
        rhs: &Constant,
    ) -> Result<Reg, Diagnostic> {
        let alu = alu_op(op);
        if alu.is_none() && op != BinOp::Mul {
            return Err(self.error(format!(
                "unsupported constant expression '{}' in code generation",
                op.name()
            )));
        }
        let width = container(self.bits_of_type(&lhs.ty())?);
        let a = self.const_reg(lhs)?;
        let b = self.const_reg(rhs)?;
        let dst = self.vreg(width);
        self.emit(K::Copy { dst, src: a });
        match alu {
            Some(op) => self.emit(K::Alu {
                op,
                width,
                dst,
                src: Rmi::Reg(b),
            }),
            None => self.emit(K::Imul {
                width,
                dst,
                src: Rm::Reg(b),
            }),
        }
        Ok(dst)
    }

    /// A register, or an immediate when the value is a constant that fits.
    fn rmi(&mut self, v: &Value) -> Result<Rmi, Diagnostic> {
        if let Some(c) = self.const_int(v) {
            if let Ok(imm) = i32::try_from(c) {
                return Ok(Rmi::Imm(imm));
            }
        }
        Ok(Rmi::Reg(self.reg(v)?))
    }

    /// The destination register of instruction `id`.
    fn dst(&self, id: InstId) -> Result<Reg, Diagnostic> {
        self.values[id.0 as usize].ok_or_else(|| {
            let inst = self.f.inst(id);
            self.error(format!(
                "unsupported result type {} of '{}' in code generation",
                type_name(self.module, &inst.ty),
                inst.kind.opcode()
            ))
        })
    }

    // ---- instructions ---------------------------------------------------

    fn lower_inst(&mut self, id: InstId) -> Result<(), Diagnostic> {
        let inst = self.f.inst(id);
        if self.needs_stack_code(&inst.kind) {
            return self.lower_stack_alloca(id);
        }
        match self.lowering[id.0 as usize] {
            Lowering::Normal if !self.selected_by_compares.contains(&id) => {}
            _ => return Ok(()),
        }
        // Aggregates with vector members are selected leaf by leaf.
        let aggregate_access = matches!(
            inst.kind,
            InstKind::ExtractValue { .. } | InstKind::InsertValue { .. }
        );
        if self.involves_vectors(id) && !aggregate_access {
            return self.lower_vector(id);
        }
        if self.lower_x87(id)?
            || self.lower_multi_register(id)?
            || is_atomic(&inst.kind) && self.lower_atomic(id)?
            || self.lower_threadlocal_address(id)?
        {
            return Ok(());
        }
        match &inst.kind {
            InstKind::Binary { op, lhs, rhs, .. } => self.lower_binary(id, *op, lhs, rhs),
            InstKind::ICmp { .. } => {
                let dst = self.dst(id)?;
                self.emit(K::MovImm {
                    dst,
                    imm: 0,
                    width: Width::W32,
                });
                let cond = self.compare_inst(id)?;
                self.emit(K::Setcc { cond, dst });
                Ok(())
            }
            InstKind::Select {
                cond,
                if_true,
                if_false,
            } if fp::fp_size(&inst.ty).is_some() => {
                let size = fp::fp_size(&inst.ty).unwrap_or(mir::FpSize::F64);
                self.lower_fp_select(id, size, cond, if_true, if_false)
            }
            InstKind::Select {
                cond,
                if_true,
                if_false,
            } => {
                let dst = self.dst(id)?;
                let width = container(self.bits_of_type(&inst.ty)?);
                let t = self.reg(if_true)?;
                let fv = self.reg(if_false)?;
                self.emit(K::Copy { dst, src: fv });
                let cc = self.condition(cond)?;
                self.emit(K::Cmov {
                    cond: cc,
                    width,
                    dst,
                    src: Rm::Reg(t),
                });
                Ok(())
            }
            InstKind::Phi { .. } => self.lower_indirect_phi(id),
            InstKind::Cast { op, value, .. } if self.lower_fp_cast(id, *op, value)? => Ok(()),
            InstKind::Cast { op, .. }
                if !matches!(
                    op,
                    CastOp::ZExt
                        | CastOp::SExt
                        | CastOp::Trunc
                        | CastOp::BitCast
                        | CastOp::PtrToInt
                        | CastOp::IntToPtr
                ) =>
            {
                Err(self.error(format!("unsupported instruction '{}'", op.name())))
            }
            InstKind::Cast { op, value, .. } => self.lower_cast(id, *op, value),
            InstKind::Call {
                callee: Value::Const(Constant::InlineAsm(asm)),
                args,
                ..
            } => self.lower_inline_asm(id, asm, args),
            InstKind::Gep { .. } if inst.ty != Type::Ptr => {
                Err(self.error("unsupported instruction 'getelementptr' over vectors".into()))
            }
            InstKind::FBinary { op, lhs, rhs, .. } => self.lower_fbinary(id, *op, lhs, rhs),
            InstKind::FNeg { value, .. } => self.lower_fneg(id, value),
            InstKind::FCmp { pred, lhs, rhs, .. } => self.lower_fcmp(id, *pred, lhs, rhs),
            InstKind::Load { ptr, .. } if fp::fp_size(&inst.ty).is_some() => {
                let size = fp::fp_size(&inst.ty).unwrap_or(mir::FpSize::F64);
                self.lower_fp_load(id, size, ptr)
            }
            InstKind::Store { value, ptr, .. } if self.fp_size_of(value)?.is_some() => {
                let size = self.fp_size_of(value)?.unwrap_or(mir::FpSize::F64);
                self.lower_fp_store(size, value, ptr)
            }
            InstKind::ExtractValue {
                aggregate, indices, ..
            } => self.lower_extract_value(id, aggregate, indices),
            InstKind::InsertValue {
                aggregate,
                elem,
                indices,
            } => self.lower_insert_value(id, aggregate, elem, indices),
            InstKind::ExtractElement { .. }
            | InstKind::InsertElement { .. }
            | InstKind::ShuffleVector { .. }
            | InstKind::VaArg { .. } => {
                Err(self.error(format!("unsupported instruction '{}'", inst.kind.opcode())))
            }
            InstKind::CmpXchg { .. } | InstKind::AtomicRmw { .. } | InstKind::Fence { .. } => {
                Err(self.error("internal: atomic instruction not selected".into()))
            }
            InstKind::Freeze { value } => {
                let dst = self.dst(id)?;
                let src = self.reg(value)?;
                self.emit(K::Copy { dst, src });
                Ok(())
            }
            InstKind::Load { ptr, .. } => {
                let dst = self.dst(id)?;
                let bits = self.bits_of_type(&inst.ty)?;
                let addr = self.address(ptr)?;
                self.load_int(dst, bits, addr);
                Ok(())
            }
            InstKind::Store {
                value: Value::Inst(op),
                ptr,
                ..
            } if self.lowering[op.0 as usize] == Lowering::InPlace => self.lower_in_place(*op, ptr),
            InstKind::Store { value, ptr, .. } => {
                let bits = self.bits_of(value)?;
                let width = match bits {
                    1 | 8 => Width::W8,
                    16 | 32 | 64 => exact_width(bits).unwrap_or(Width::W64),
                    _ => {
                        let src = self.reg(value)?;
                        let addr = self.address(ptr)?;
                        self.store_int(src, bits, addr);
                        return Ok(());
                    }
                };
                let src = match self.const_int(value) {
                    Some(c) if i32::try_from(c).is_ok() => {
                        Ri::Imm(if bits == 1 { (c & 1) as i32 } else { c as i32 })
                    }
                    _ if bits == 1 => Ri::Reg(self.normalized(value, false)?),
                    _ => Ri::Reg(self.reg(value)?),
                };
                let addr = self.address(ptr)?;
                self.emit(K::Store { src, addr, width });
                Ok(())
            }
            InstKind::Gep { .. } => {
                let dst = self.dst(id)?;
                let addr = self.gep_address(id)?;
                self.emit(K::Lea { dst, addr });
                Ok(())
            }
            InstKind::Alloca { .. } => Ok(()),
            InstKind::Call {
                callee,
                args,
                fn_ty,
                ..
            }
            | InstKind::Invoke {
                callee,
                args,
                fn_ty,
                ..
            } => self.lower_call(id, callee, args, fn_ty),
            InstKind::LandingPad { .. } => self.lower_landing_pad(id),
            InstKind::Resume { value } => self.lower_resume(value),
            // A sibling call jumped away: the branch to the return is dead.
            InstKind::Br { .. } if std::mem::take(&mut self.after_tail_jump) => Ok(()),
            InstKind::Br { .. } | InstKind::CondBr { .. } | InstKind::Switch { .. } => {
                self.lower_branch(id)
            }
            InstKind::IndirectBr { address, dests } => {
                self.lower_indirect_branch(id, address, dests)
            }
            InstKind::Ret { value } => {
                let mut uses: Vec<PhysReg> = Vec::new();
                if let Some(v) = value
                    .as_ref()
                    .filter(|v| matches!(self.fp_size_of(v), Ok(Some(_))))
                {
                    let r = self.reg(v)?;
                    self.emit(K::Copy {
                        dst: Reg::from(XMM_RETURN_REGISTER),
                        src: r,
                    });
                    uses.push(XMM_RETURN_REGISTER.into());
                } else if let Some(v) = value {
                    let bits = self.bits_of(v)?;
                    let mut r = self.reg(v)?;
                    let attrs = self.f.ret_attrs.clone();
                    if bits < 32 && (attrs.signext || attrs.zeroext) {
                        r = self.extend(r, bits, Width::W32, attrs.signext);
                    }
                    self.emit(K::Copy {
                        dst: Reg::from(Gpr::Rax),
                        src: r,
                    });
                    uses.push(Gpr::Rax.into());
                }
                self.emit(K::Ret { uses });
                Ok(())
            }
            InstKind::Unreachable => {
                self.emit(K::Ud2);
                Ok(())
            }
        }
    }

    // ---- debug records --------------------------------------------------
}
