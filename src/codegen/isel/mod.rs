//! Instruction selection: one IR function to MIR over virtual registers.
//!
//! In: an [`ir::Function`] definition of a module. Out: a
//! [`mir::Function`] in two-address x86 form over virtual registers, with
//! physical registers only where the SysV ABI or an instruction needs them,
//! plus the [`DebugTable`] its `DbgValue`s refer to.
//!
//! How values live: every IR value of type `iN` (N ≤ 64) or `ptr` has one
//! virtual register, 32 bits wide for N ≤ 32 and 64 bits otherwise. The
//! bits above N in a narrow value's register are unspecified: operations
//! that look at them (comparisons of odd widths, division, right shifts,
//! extensions, `signext`/`zeroext` arguments and returns, `i1` stores)
//! extend first. Constants, allocas, and addresses computed by GEPs whose
//! only users are loads and stores are not given registers: they are folded
//! into the instructions that use them (immediates, `[slot + disp]`,
//! `[base + index*scale + disp]`).
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
//! Promises: every machine instruction carries the IR instruction's
//! DILocation as `loc = LocId + 1` (0: none); debug records become
//! `DbgValue`s at their position and never influence code selection
//! (`.text` is identical with `debug_info` off); a parameter's registers are
//! copied out at entry before any debug value names it; anything this
//! selector does not support is a [`Diagnostic`] naming it, never a panic.

mod data;
pub mod debug;

use std::collections::HashMap;

use dwarfsmith_emit::model::Op;

use crate::codegen::mir::{
    self, Address, AddressBase, AluOp, BlockId as MBlock, CallTarget, Cond, DbgOperand, DbgValue,
    Inst as MInst, InstKind as K, Reg, Ri, Rm, Rmi, ShiftAmount, ShiftOp, StackSlotId,
    StackSlotKind, UnaryOp, Width,
};
use crate::error::Diagnostic;
use crate::ir::{
    self, BinOp, CastOp, ConstExpr, Constant, FuncId, GlobalRef, ICmpPred, InstId, InstKind,
    Intrinsic, Module, RecordKind, Type, Value,
};
use crate::x86::abi::{ARGUMENT_REGISTERS, CALLER_SAVED, STACK_ARGUMENT_SIZE};
use crate::x86::Gpr;

pub use data::select_data;
pub use debug::{ArgType, DebugExpr, DebugTable, VariableKey};

/// What instruction selection makes of one function.
#[derive(Clone, Debug)]
pub struct SelectedFunction {
    /// The machine function over virtual registers.
    pub mir: mir::Function,
    /// The meaning of its `DbgValue`s' `variable` and `expr` numbers.
    pub debug: DebugTable,
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
    s.run()?;
    Ok(SelectedFunction {
        mir: s.mir,
        debug: s.debug,
    })
}

/// The fewest cases worth a jump table.
const JUMP_TABLE_MIN_CASES: usize = 4;

/// Splits sorted switch cases into runs: each run of at least
/// [`JUMP_TABLE_MIN_CASES`] cases whose span is at most three times its
/// number of cases (and at most 4096) becomes a jump table; every other
/// case is a run of its own, compared one by one. Greedy, left to right,
/// each table as long as it can be.
fn switch_clusters(cases: &[(i64, MBlock)]) -> Vec<&[(i64, MBlock)]> {
    let dense = |run: &[(i64, MBlock)]| {
        let span = i128::from(run[run.len() - 1].0) - i128::from(run[0].0) + 1;
        span <= 3 * run.len() as i128
            && span <= 4096
            && i32::try_from(run[0].0).is_ok()
            && i32::try_from(run[run.len() - 1].0).is_ok()
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < cases.len() {
        let mut best = i;
        for j in (i + JUMP_TABLE_MIN_CASES - 1)..cases.len() {
            if dense(&cases[i..=j]) {
                best = j;
            }
        }
        if best > i {
            out.push(&cases[i..=best]);
            i = best + 1;
        } else {
            out.push(&cases[i..=i]);
            i += 1;
        }
    }
    out
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

/// The x86 condition of an integer predicate.
fn cond_of(pred: ICmpPred) -> Cond {
    match pred {
        ICmpPred::Eq => Cond::E,
        ICmpPred::Ne => Cond::Ne,
        ICmpPred::Ugt => Cond::A,
        ICmpPred::Uge => Cond::Ae,
        ICmpPred::Ult => Cond::B,
        ICmpPred::Ule => Cond::Be,
        ICmpPred::Sgt => Cond::G,
        ICmpPred::Sge => Cond::Ge,
        ICmpPred::Slt => Cond::L,
        ICmpPred::Sle => Cond::Le,
    }
}

/// The predicate with its operands swapped (`a < b` ⇔ `b > a`).
fn swapped(pred: ICmpPred) -> ICmpPred {
    match pred {
        ICmpPred::Eq | ICmpPred::Ne => pred,
        ICmpPred::Ugt => ICmpPred::Ult,
        ICmpPred::Uge => ICmpPred::Ule,
        ICmpPred::Ult => ICmpPred::Ugt,
        ICmpPred::Ule => ICmpPred::Uge,
        ICmpPred::Sgt => ICmpPred::Slt,
        ICmpPred::Sge => ICmpPred::Sle,
        ICmpPred::Slt => ICmpPred::Sgt,
        ICmpPred::Sle => ICmpPred::Sge,
    }
}

fn is_signed(pred: ICmpPred) -> bool {
    matches!(
        pred,
        ICmpPred::Sgt | ICmpPred::Sge | ICmpPred::Slt | ICmpPred::Sle
    )
}

/// How an instruction's result is produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lowering {
    /// Selected at its position into its virtual register.
    Normal,
    /// A compare fused into its only user (a branch or select).
    FusedCompare,
    /// A GEP folded into the addresses of the loads and stores using it.
    FoldedAddress,
    /// An alloca: a stack slot, used as an address operand.
    Slot(StackSlotId),
}

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
            edge_blocks: HashMap::new(),
            edge_order: Vec::new(),
            current: MBlock(0),
            loc: 0,
            pos: f.pos,
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
            let reg = match &inst.ty {
                Type::Void => None,
                Type::Int(bits) if *bits <= 64 => Some(self.vreg(container(*bits))),
                Type::Ptr => Some(self.vreg(Width::W64)),
                _ => None,
            };
            self.values.push(reg);
        }
        self.classify();
        if let Some(p) = f
            .params
            .iter()
            .find(|p| p.attrs.byval.is_some() || p.attrs.sret.is_some())
        {
            let what = if p.attrs.byval.is_some() {
                "byval"
            } else {
                "sret"
            };
            return Err(self.error(format!("unsupported {what} parameter")));
        }
        self.lower_params()?;
        for b in 0..f.blocks.len() {
            self.current = MBlock(b as u32);
            for &id in &f.blocks[b].insts {
                let inst = f.inst(id);
                self.pos = inst.pos;
                self.loc = mir_loc(inst.dbg);
                if self.options.debug_info {
                    for record in &inst.records {
                        self.lower_record(record)?;
                    }
                }
                self.loc = mir_loc(inst.dbg);
                self.lower_inst(id)?;
            }
        }
        self.layout();
        Ok(())
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
                Some(K::Jmp { .. } | K::JmpIndirect { .. } | K::Ret { .. } | K::Ud2)
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
                    K::Jmp { target } | K::Jcc { target, .. } => {
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
    }

    /// Decides which instructions are fused or folded into their users,
    /// from their non-debug uses only (so debug info never changes code).
    fn classify(&mut self) {
        let f = self.f;
        // Per instruction: (number of uses, all uses are load/store addresses,
        // the single user if exactly one).
        let n = f.insts.len();
        let mut uses = vec![0u32; n];
        let mut address_only = vec![true; n];
        let mut user = vec![None; n];
        for block in &f.blocks {
            for &id in &block.insts {
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
                        }
                    }
                }
            }
        }
        for block in &f.blocks {
            for &id in &block.insts {
                let i = id.0 as usize;
                let inst = f.inst(id);
                match &inst.kind {
                    InstKind::Alloca { .. } => {}
                    InstKind::ICmp { .. } if uses[i] == 1 => {
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
                    _ => {}
                }
            }
        }
        // Allocas become stack slots (entry or not: the frame is fixed).
        for block in &f.blocks {
            for &id in &block.insts {
                if let InstKind::Alloca {
                    allocated,
                    count,
                    align,
                } = &f.inst(id).kind
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

    /// Copies the parameters out of their ABI places into virtual registers.
    fn lower_params(&mut self) -> Result<(), Diagnostic> {
        self.current = MBlock(0);
        // No location: the line table counts them with the prologue.
        self.loc = 0;
        for (i, param) in self.f.params.iter().enumerate() {
            let bits = self.bits_of_type(&param.ty)?;
            let reg = self.vreg(container(bits));
            self.args.push(reg);
            if let Some(&phys) = ARGUMENT_REGISTERS.get(i) {
                self.emit(K::Copy {
                    dst: reg,
                    src: Reg::Phys(phys),
                });
            } else {
                let disp = (i - ARGUMENT_REGISTERS.len()) as u32 * STACK_ARGUMENT_SIZE;
                self.emit(K::Load {
                    dst: reg,
                    addr: Address {
                        base: AddressBase::IncomingArgs,
                        index: None,
                        disp: disp as i32,
                    },
                    width: container(bits),
                });
            }
        }
        Ok(())
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
                Lowering::FusedCompare => {
                    Err(self.error("internal: a fused compare used as a value".into()))
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
            Constant::Global(_) | Constant::Expr(_) => {
                if let Constant::Expr(e) = c {
                    if let ConstExpr::Cast { value, .. } = &**e {
                        return self.const_reg(value);
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

    /// A register, or an immediate when the value is a constant that fits.
    fn rmi(&mut self, v: &Value) -> Result<Rmi, Diagnostic> {
        if let Some(c) = self.const_int(v) {
            if let Ok(imm) = i32::try_from(c) {
                return Ok(Rmi::Imm(imm));
            }
        }
        Ok(Rmi::Reg(self.reg(v)?))
    }

    /// The address of a global symbol.
    fn symbol_address(&mut self, g: GlobalRef, disp: i64) -> Result<Address, Diagnostic> {
        let name = self.module.symbol_name(g).to_string();
        let local = match g {
            GlobalRef::Var(id) => {
                let global = self.module.global(id);
                global.dso_local || global.linkage.is_local() || global.initializer.is_some()
            }
            GlobalRef::Func(id) => {
                let func = self.module.function(id);
                func.dso_local || func.linkage.is_local() || !func.is_declaration()
            }
        };
        let disp = i32::try_from(disp)
            .map_err(|_| self.error("address displacement out of range".into()))?;
        if local {
            return Ok(Address {
                base: AddressBase::Symbol(name),
                index: None,
                disp,
            });
        }
        let base = self.vreg(Width::W64);
        self.emit(K::Load {
            dst: base,
            addr: Address {
                base: AddressBase::Got(name),
                index: None,
                disp: 0,
            },
            width: Width::W64,
        });
        Ok(Address::reg(base, disp))
    }

    /// The address a constant pointer denotes.
    fn const_address(&mut self, c: &Constant) -> Result<Address, Diagnostic> {
        match c {
            Constant::Global(g) => self.symbol_address(*g, 0),
            Constant::Expr(e) => match &**e {
                ConstExpr::Gep {
                    source,
                    base,
                    indices,
                    ..
                } => {
                    let indices: Vec<Value> = indices.iter().cloned().map(Value::Const).collect();
                    let offset = self
                        .module
                        .gep_const_offset(source, &indices)
                        .ok_or_else(|| self.error("unsupported constant getelementptr".into()))?;
                    let mut addr = self.const_address(base)?;
                    addr.disp = addr
                        .disp
                        .checked_add(i32::try_from(offset).unwrap_or(i32::MAX))
                        .ok_or_else(|| self.error("address displacement out of range".into()))?;
                    Ok(addr)
                }
                ConstExpr::Cast { value, .. } => self.const_address(value),
                ConstExpr::Binary { op, .. } => Err(self.error(format!(
                    "unsupported constant expression '{}' in code generation",
                    op.name()
                ))),
            },
            _ => {
                let r = self.const_reg(c)?;
                Ok(Address::reg(r, 0))
            }
        }
    }

    /// The memory operand for a pointer value, folding allocas, globals and
    /// GEPs into the addressing mode.
    fn address(&mut self, v: &Value) -> Result<Address, Diagnostic> {
        match v {
            Value::Const(c) => self.const_address(c),
            Value::Arg(_) => Ok(Address::reg(self.reg(v)?, 0)),
            Value::Inst(id) => match self.lowering[id.0 as usize] {
                Lowering::Slot(slot) => Ok(Address::slot(slot, 0)),
                Lowering::FoldedAddress => self.gep_address(*id),
                _ => Ok(Address::reg(self.reg(v)?, 0)),
            },
        }
    }

    /// The address a GEP computes, as a memory operand.
    fn gep_address(&mut self, id: InstId) -> Result<Address, Diagnostic> {
        let InstKind::Gep {
            source,
            base,
            indices,
            ..
        } = &self.f.inst(id).kind
        else {
            return Err(self.error("internal: not a getelementptr".into()));
        };
        let steps = self
            .module
            .gep_steps(source, indices)
            .ok_or_else(|| self.error("unsupported getelementptr indices".into()))?;
        let mut addr = self.address(base)?;
        let mut disp = i64::from(addr.disp);
        for step in steps {
            match step {
                ir::GepStep::Offset(bytes) => disp += bytes as i64,
                ir::GepStep::Scaled { index, stride } => {
                    let idx = &indices[index];
                    if let Some(c) = self.const_int(idx) {
                        disp = disp.wrapping_add(c.wrapping_mul(stride as i64));
                        continue;
                    }
                    let bits = self.bits_of(idx)?;
                    let r = self.reg(idx)?;
                    let mut r = self.extend(r, bits, Width::W64, true);
                    let mut scale = stride;
                    if !matches!(stride, 1 | 2 | 4 | 8) {
                        let scaled = self.vreg(Width::W64);
                        self.emit(K::ImulImm {
                            width: Width::W64,
                            dst: scaled,
                            src: Rm::Reg(r),
                            imm: i32::try_from(stride)
                                .map_err(|_| self.error("getelementptr stride too large".into()))?,
                        });
                        r = scaled;
                        scale = 1;
                    }
                    // One index register per address: fold the old one first.
                    let can_index = addr.index.is_none()
                        && matches!(addr.base, AddressBase::Reg(_) | AddressBase::Slot(_));
                    if !can_index {
                        addr.disp = i32::try_from(disp)
                            .map_err(|_| self.error("address displacement out of range".into()))?;
                        let b = self.vreg(Width::W64);
                        self.emit(K::Lea { dst: b, addr });
                        addr = Address::reg(b, 0);
                        disp = 0;
                    }
                    addr.index = Some((r, scale as u8));
                }
            }
        }
        addr.disp = i32::try_from(disp)
            .map_err(|_| self.error("address displacement out of range".into()))?;
        Ok(addr)
    }

    /// `reg` (an integer of `bits` bits with unspecified upper bits)
    /// extended to fill `to`; returns `reg` itself when it already does.
    fn extend(&mut self, reg: Reg, bits: u32, to: Width, signed: bool) -> Reg {
        if bits == to.bits() {
            return reg;
        }
        let dst = self.vreg(to);
        if let Some(from) = exact_width(bits) {
            self.emit(K::Extend {
                dst,
                src: Rm::Reg(reg),
                from,
                to,
                signed,
            });
            return dst;
        }
        self.emit(K::Copy { dst, src: reg });
        if !signed && bits < 32 {
            self.emit(K::Alu {
                op: AluOp::And,
                width: Width::W32,
                dst,
                src: Rmi::Imm(((1u32 << bits) - 1) as i32),
            });
        } else {
            let shift = (to.bits() - bits) as u8;
            self.emit(K::Shift {
                op: ShiftOp::Shl,
                width: to,
                dst,
                amount: ShiftAmount::Imm(shift),
            });
            self.emit(K::Shift {
                op: if signed { ShiftOp::Sar } else { ShiftOp::Shr },
                width: to,
                dst,
                amount: ShiftAmount::Imm(shift),
            });
        }
        dst
    }

    /// A value extended to its container width.
    fn normalized(&mut self, v: &Value, signed: bool) -> Result<Reg, Diagnostic> {
        let bits = self.bits_of(v)?;
        let r = self.reg(v)?;
        Ok(self.extend(r, bits, container(bits), signed))
    }

    /// The destination register of instruction `id`.
    fn dst(&self, id: InstId) -> Result<Reg, Diagnostic> {
        self.values[id.0 as usize]
            .ok_or_else(|| self.error("unsupported result type in code generation".into()))
    }

    // ---- instructions ---------------------------------------------------

    fn lower_inst(&mut self, id: InstId) -> Result<(), Diagnostic> {
        let inst = self.f.inst(id);
        if let InstKind::Alloca { count, align, .. } = &inst.kind {
            if count.as_ref().is_some_and(|c| self.const_int(c).is_none()) {
                return Err(self.error("unsupported alloca with a variable element count".into()));
            }
            if let Some(align) = align.filter(|&a| a > 16) {
                return Err(self.error(format!(
                    "unsupported alloca alignment {align} (the frame aligns to 16)"
                )));
            }
        }
        match self.lowering[id.0 as usize] {
            Lowering::Normal => {}
            _ => return Ok(()),
        }
        match &inst.kind {
            InstKind::Binary { op, lhs, rhs, .. } => self.lower_binary(id, *op, lhs, rhs),
            InstKind::ICmp { pred, lhs, rhs } => {
                let dst = self.dst(id)?;
                self.emit(K::MovImm {
                    dst,
                    imm: 0,
                    width: Width::W32,
                });
                let cond = self.compare(*pred, lhs, rhs)?;
                self.emit(K::Setcc { cond, dst });
                Ok(())
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
            InstKind::Phi { .. } => Ok(()),
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
            InstKind::Load {
                atomic: Some(_), ..
            } => Err(self.error("unsupported instruction 'load atomic'".into())),
            InstKind::Store {
                atomic: Some(_), ..
            } => Err(self.error("unsupported instruction 'store atomic'".into())),
            InstKind::Call {
                callee: Value::Const(Constant::InlineAsm(asm)),
                ..
            } => Err(self.error(format!(
                "unsupported inline asm call \"{}\"",
                String::from_utf8_lossy(&asm.template)
            ))),
            InstKind::Gep { .. } if inst.ty != Type::Ptr => {
                Err(self.error("unsupported instruction 'getelementptr' over vectors".into()))
            }
            InstKind::Call { args, .. } if args.iter().any(|a| a.attrs.byval.is_some()) => {
                Err(self.error("unsupported byval argument".into()))
            }
            InstKind::FBinary { .. }
            | InstKind::FNeg { .. }
            | InstKind::FCmp { .. }
            | InstKind::ExtractElement { .. }
            | InstKind::InsertElement { .. }
            | InstKind::ShuffleVector { .. }
            | InstKind::ExtractValue { .. }
            | InstKind::InsertValue { .. }
            | InstKind::CmpXchg { .. }
            | InstKind::AtomicRmw { .. }
            | InstKind::Fence { .. }
            | InstKind::VaArg { .. }
            | InstKind::IndirectBr { .. } => {
                Err(self.error(format!("unsupported instruction '{}'", inst.kind.opcode())))
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
                match bits {
                    1 | 8 | 16 => self.emit(K::Extend {
                        dst,
                        src: Rm::Mem(addr),
                        from: if bits == 16 { Width::W16 } else { Width::W8 },
                        to: Width::W32,
                        signed: false,
                    }),
                    32 | 64 => self.emit(K::Load {
                        dst,
                        addr,
                        width: container(bits),
                    }),
                    _ => return Err(self.error(format!("unsupported load of i{bits}"))),
                }
                Ok(())
            }
            InstKind::Store { value, ptr, .. } => {
                let bits = self.bits_of(value)?;
                let width = match bits {
                    1 | 8 => Width::W8,
                    16 | 32 | 64 => exact_width(bits).unwrap_or(Width::W64),
                    _ => return Err(self.error(format!("unsupported store of i{bits}"))),
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
            } => self.lower_call(id, callee, args, fn_ty),
            InstKind::Br { .. } | InstKind::CondBr { .. } | InstKind::Switch { .. } => {
                self.lower_branch(id)
            }
            InstKind::Ret { value } => {
                let mut uses = Vec::new();
                if let Some(v) = value {
                    let bits = self.bits_of(v)?;
                    let mut r = self.reg(v)?;
                    let attrs = self.f.ret_attrs.clone();
                    if bits < 32 && (attrs.signext || attrs.zeroext) {
                        r = self.extend(r, bits, Width::W32, attrs.signext);
                    }
                    self.emit(K::Copy {
                        dst: Reg::Phys(Gpr::Rax),
                        src: r,
                    });
                    uses.push(Gpr::Rax);
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

    fn lower_binary(
        &mut self,
        id: InstId,
        op: BinOp,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<(), Diagnostic> {
        let dst = self.dst(id)?;
        let bits = self.bits_of(lhs)?;
        let width = container(bits);
        let commutative = matches!(
            op,
            BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor
        );
        let (lhs, rhs) = if commutative && self.const_int(lhs).is_some() {
            (rhs, lhs)
        } else {
            (lhs, rhs)
        };
        let alu = |op| match op {
            BinOp::Add => Some(AluOp::Add),
            BinOp::Sub => Some(AluOp::Sub),
            BinOp::And => Some(AluOp::And),
            BinOp::Or => Some(AluOp::Or),
            BinOp::Xor => Some(AluOp::Xor),
            _ => None,
        };
        if let Some(alu_op) = alu(op) {
            let a = self.reg(lhs)?;
            let b = self.rmi(rhs)?;
            self.emit(K::Copy { dst, src: a });
            self.emit(K::Alu {
                op: alu_op,
                width,
                dst,
                src: b,
            });
            return Ok(());
        }
        match op {
            BinOp::Mul => {
                let a = self.reg(lhs)?;
                match self.const_int(rhs).and_then(|c| i32::try_from(c).ok()) {
                    Some(imm) => self.emit(K::ImulImm {
                        width,
                        dst,
                        src: Rm::Reg(a),
                        imm,
                    }),
                    None => {
                        let b = self.reg(rhs)?;
                        self.emit(K::Copy { dst, src: a });
                        self.emit(K::Imul {
                            width,
                            dst,
                            src: Rm::Reg(b),
                        });
                    }
                }
                Ok(())
            }
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                let a = match op {
                    BinOp::Shl => self.reg(lhs)?,
                    _ => self.normalized(lhs, op == BinOp::AShr)?,
                };
                let shift = match op {
                    BinOp::Shl => ShiftOp::Shl,
                    BinOp::LShr => ShiftOp::Shr,
                    _ => ShiftOp::Sar,
                };
                let count = match self.const_int(rhs) {
                    Some(c) => Err((c as u64 & u64::from(width.bits() - 1)) as u8),
                    None => Ok(self.reg(rhs)?),
                };
                self.emit(K::Copy { dst, src: a });
                let amount = match count {
                    Err(imm) => ShiftAmount::Imm(imm),
                    Ok(count) => {
                        self.emit(K::Copy {
                            dst: Reg::Phys(Gpr::Rcx),
                            src: count,
                        });
                        ShiftAmount::Cl
                    }
                };
                self.emit(K::Shift {
                    op: shift,
                    width,
                    dst,
                    amount,
                });
                Ok(())
            }
            BinOp::SDiv | BinOp::UDiv | BinOp::SRem | BinOp::URem => {
                let signed = matches!(op, BinOp::SDiv | BinOp::SRem);
                let a = self.normalized(lhs, signed)?;
                let b = self.normalized(rhs, signed)?;
                self.emit(K::Copy {
                    dst: Reg::Phys(Gpr::Rax),
                    src: a,
                });
                if signed {
                    self.emit(K::SignExtendAx { width });
                } else {
                    self.emit(K::MovImm {
                        dst: Reg::Phys(Gpr::Rdx),
                        imm: 0,
                        width: Width::W32,
                    });
                }
                self.emit(K::Div {
                    signed,
                    width,
                    divisor: Rm::Reg(b),
                });
                let result = if matches!(op, BinOp::SDiv | BinOp::UDiv) {
                    Gpr::Rax
                } else {
                    Gpr::Rdx
                };
                self.emit(K::Copy {
                    dst,
                    src: Reg::Phys(result),
                });
                Ok(())
            }
            _ => Err(self.error(format!("unsupported instruction '{}'", op.name()))),
        }
    }

    fn lower_cast(&mut self, id: InstId, op: CastOp, value: &Value) -> Result<(), Diagnostic> {
        let dst = self.dst(id)?;
        let to_bits = self.bits_of_type(&self.f.inst(id).ty)?;
        let from_bits = self.bits_of(value)?;
        let src = self.reg(value)?;
        let signed = match op {
            CastOp::ZExt | CastOp::IntToPtr if from_bits < to_bits => false,
            CastOp::SExt => true,
            _ => {
                self.emit(K::Copy { dst, src });
                return Ok(());
            }
        };
        let to = container(to_bits);
        match exact_width(from_bits) {
            // One movzx/movsx straight into the result.
            Some(from) if from < to => self.emit(K::Extend {
                dst,
                src: Rm::Reg(src),
                from,
                to,
                signed,
            }),
            _ => {
                let result = self.extend(src, from_bits, to, signed);
                self.emit(K::Copy { dst, src: result });
            }
        }
        Ok(())
    }

    /// Emits a compare of two integers and returns the condition that holds
    /// when `lhs pred rhs`.
    fn compare(&mut self, pred: ICmpPred, lhs: &Value, rhs: &Value) -> Result<Cond, Diagnostic> {
        let (pred, lhs, rhs) = if self.const_int(lhs).is_some() && self.const_int(rhs).is_none() {
            (swapped(pred), rhs, lhs)
        } else {
            (pred, lhs, rhs)
        };
        let bits = self.bits_of(lhs)?;
        let (a, width) = match exact_width(bits) {
            Some(w) => (self.reg(lhs)?, w),
            None => (self.normalized(lhs, is_signed(pred))?, container(bits)),
        };
        let b = match self.const_int(rhs) {
            Some(c) if i32::try_from(c).is_ok() => {
                let c = if exact_width(bits).is_none() && !is_signed(pred) {
                    // The normalised left side is zero-extended: so is the constant.
                    Constant::int(bits, i128::from(c)).zext_value().unwrap_or(0) as i64
                } else {
                    c
                };
                match i32::try_from(c) {
                    Ok(imm) => Rmi::Imm(imm),
                    Err(_) => Rmi::Reg(self.normalized(rhs, false)?),
                }
            }
            _ if exact_width(bits).is_some() => Rmi::Reg(self.reg(rhs)?),
            _ => Rmi::Reg(self.normalized(rhs, is_signed(pred))?),
        };
        self.emit(K::Cmp {
            width,
            lhs: Rm::Reg(a),
            rhs: b,
        });
        Ok(cond_of(pred))
    }

    /// Sets the flags from an `i1` condition and returns the condition code
    /// meaning "true": a fused compare, or a test of the value's low bit.
    fn condition(&mut self, cond: &Value) -> Result<Cond, Diagnostic> {
        if let Value::Inst(id) = cond {
            if self.lowering[id.0 as usize] == Lowering::FusedCompare {
                let InstKind::ICmp { pred, lhs, rhs } = &self.f.inst(*id).kind else {
                    return Err(self.error("internal: fused value is not a compare".into()));
                };
                return self.compare(*pred, lhs, rhs);
            }
        }
        let r = self.reg(cond)?;
        self.emit(K::Test {
            width: Width::W8,
            lhs: Rm::Reg(r),
            rhs: Ri::Imm(1),
        });
        Ok(Cond::Ne)
    }

    fn lower_call(
        &mut self,
        id: InstId,
        callee: &Value,
        args: &[ir::CallArg],
        fn_ty: &ir::FunctionType,
    ) -> Result<(), Diagnostic> {
        let direct = self.module.direct_callee(callee);
        let mut symbol = None;
        if let Some(fid) = direct {
            let name = &self.module.function(fid).name;
            if name.starts_with("llvm.") {
                return self.lower_intrinsic(id, name, args);
            }
            symbol = Some(name.clone());
        }
        self.call(id, symbol, callee, args, fn_ty.varargs)
    }

    /// A call following the SysV ABI: six register arguments, the rest on
    /// the stack; narrow `signext`/`zeroext` arguments extended to 32 bits.
    fn call(
        &mut self,
        id: InstId,
        symbol: Option<String>,
        callee: &Value,
        args: &[ir::CallArg],
        varargs: bool,
    ) -> Result<(), Diagnostic> {
        let mut regs = Vec::with_capacity(args.len());
        for arg in args {
            let bits = self.bits_of(&arg.value)?;
            let mut r = self.reg(&arg.value)?;
            if bits < 32 && (arg.attrs.signext || arg.attrs.zeroext) {
                r = self.extend(r, bits, Width::W32, arg.attrs.signext);
            }
            regs.push((r, bits));
        }
        let target = match symbol {
            Some(name) => CallTarget::Symbol(name),
            None => CallTarget::Reg(self.reg(callee)?),
        };
        let stack_args = regs.len().saturating_sub(ARGUMENT_REGISTERS.len()) as u32;
        self.mir.outgoing_args_size = self
            .mir
            .outgoing_args_size
            .max(stack_args * STACK_ARGUMENT_SIZE);
        for (i, &(r, bits)) in regs.iter().enumerate().skip(ARGUMENT_REGISTERS.len()) {
            let disp = (i - ARGUMENT_REGISTERS.len()) as u32 * STACK_ARGUMENT_SIZE;
            self.emit(K::Store {
                src: Ri::Reg(r),
                addr: Address {
                    base: AddressBase::OutgoingArgs,
                    index: None,
                    disp: disp as i32,
                },
                width: container(bits),
            });
        }
        let mut used = Vec::new();
        for (&(r, _), &phys) in regs.iter().zip(ARGUMENT_REGISTERS.iter()) {
            self.emit(K::Copy {
                dst: Reg::Phys(phys),
                src: r,
            });
            used.push(phys);
        }
        if varargs {
            // %al: the number of vector registers used (none).
            self.emit(K::MovImm {
                dst: Reg::Phys(Gpr::Rax),
                imm: 0,
                width: Width::W32,
            });
            used.push(Gpr::Rax);
        }
        let result = self.values[id.0 as usize];
        self.emit(K::Call {
            target,
            args: used,
            rets: if result.is_some() {
                vec![Gpr::Rax]
            } else {
                Vec::new()
            },
            clobbers: CALLER_SAVED,
        });
        if let Some(dst) = result {
            self.emit(K::Copy {
                dst,
                src: Reg::Phys(Gpr::Rax),
            });
        }
        Ok(())
    }

    fn lower_intrinsic(
        &mut self,
        id: InstId,
        name: &str,
        args: &[ir::CallArg],
    ) -> Result<(), Diagnostic> {
        let unsupported = || format!("unsupported intrinsic '{name}'");
        let intrinsic = Intrinsic::from_name(name).ok_or_else(|| self.error(unsupported()))?;
        let arg = |i: usize| args.get(i).map(|a| &a.value);
        match intrinsic {
            Intrinsic::LifetimeStart | Intrinsic::LifetimeEnd => Ok(()),
            Intrinsic::SMax | Intrinsic::SMin | Intrinsic::UMax | Intrinsic::UMin => {
                let (Some(a), Some(b)) = (arg(0), arg(1)) else {
                    return Err(self.error(unsupported()));
                };
                let dst = self.dst(id)?;
                let bits = self.bits_of(a)?;
                let signed = matches!(intrinsic, Intrinsic::SMax | Intrinsic::SMin);
                let ra = self.normalized(a, signed)?;
                let rb = self.normalized(b, signed)?;
                let width = container(bits);
                self.emit(K::Copy { dst, src: ra });
                self.emit(K::Cmp {
                    width,
                    lhs: Rm::Reg(ra),
                    rhs: Rmi::Reg(rb),
                });
                // Take b when a is not already the answer.
                let take_b = match intrinsic {
                    Intrinsic::SMax => Cond::L,
                    Intrinsic::SMin => Cond::G,
                    Intrinsic::UMax => Cond::B,
                    _ => Cond::A,
                };
                self.emit(K::Cmov {
                    cond: take_b,
                    width,
                    dst,
                    src: Rm::Reg(rb),
                });
                Ok(())
            }
            Intrinsic::Abs => {
                let Some(a) = arg(0) else {
                    return Err(self.error(unsupported()));
                };
                let dst = self.dst(id)?;
                let width = container(self.bits_of(a)?);
                let ra = self.normalized(a, true)?;
                self.emit(K::Copy { dst, src: ra });
                self.emit(K::Unary {
                    op: UnaryOp::Neg,
                    width,
                    dst,
                });
                // neg made it negative: the original was the absolute value.
                self.emit(K::Cmov {
                    cond: Cond::S,
                    width,
                    dst,
                    src: Rm::Reg(ra),
                });
                Ok(())
            }
            Intrinsic::Bswap => {
                let Some(a) = arg(0) else {
                    return Err(self.error(unsupported()));
                };
                let dst = self.dst(id)?;
                let bits = self.bits_of(a)?;
                let ra = self.reg(a)?;
                self.emit(K::Copy { dst, src: ra });
                match bits {
                    16 => self.emit(K::Shift {
                        op: ShiftOp::Rol,
                        width: Width::W16,
                        dst,
                        amount: ShiftAmount::Imm(8),
                    }),
                    32 | 64 => self.emit(K::Unary {
                        op: UnaryOp::Bswap,
                        width: container(bits),
                        dst,
                    }),
                    _ => return Err(self.error(unsupported())),
                }
                Ok(())
            }
            Intrinsic::Memset | Intrinsic::Memcpy | Intrinsic::Memmove => {
                let symbol = match intrinsic {
                    Intrinsic::Memset => "memset",
                    Intrinsic::Memcpy => "memcpy",
                    _ => "memmove",
                };
                // The trailing `i1 isvolatile` is not a C argument.
                let c_args = &args[..args.len().min(3)];
                let callee = Value::Const(Constant::Null);
                self.call(id, Some(symbol.to_string()), &callee, c_args, false)
            }
            Intrinsic::Ctpop
            | Intrinsic::Ctlz
            | Intrinsic::Cttz
            | Intrinsic::Fshl
            | Intrinsic::Fshr => Err(self.error(unsupported())),
        }
    }

    // ---- control flow ---------------------------------------------------

    /// Whether IR block `b` starts with phis.
    fn has_phis(&self, b: ir::BlockId) -> bool {
        self.f.blocks[b.0 as usize]
            .insts
            .first()
            .is_some_and(|&i| matches!(self.f.inst(i).kind, InstKind::Phi { .. }))
    }

    /// Emits the copies that give `succ`'s phis their values for the edge
    /// from `pred`, into the current block.
    fn phi_copies(&mut self, pred: u32, succ: ir::BlockId) -> Result<(), Diagnostic> {
        let mut moves = Vec::new();
        for &id in &self.f.blocks[succ.0 as usize].insts {
            let InstKind::Phi { incoming } = &self.f.inst(id).kind else {
                break;
            };
            let Some((value, _)) = incoming.iter().find(|(_, b)| b.0 == pred) else {
                continue;
            };
            if matches!(self.f.inst(id).ty, Type::Int(_) | Type::Ptr) {
                moves.push((self.dst(id)?, value.clone()));
            }
        }
        // A phi of this block read by another move is saved in a temporary
        // first (the parallel-copy problem: swaps, rotations); every other
        // value is copied or materialised straight into its phi.
        let written: Vec<Reg> = moves.iter().map(|(dst, _)| *dst).collect();
        let mut sources = Vec::with_capacity(moves.len());
        for (dst, value) in &moves {
            let source = match value {
                Value::Inst(id) if self.lowering[id.0 as usize] == Lowering::Normal => {
                    let src = self.dst(*id)?;
                    if src == *dst {
                        None
                    } else if written.contains(&src) {
                        let t = self.vreg(self.width_of(src));
                        self.emit(K::Copy { dst: t, src });
                        Some(Ok(t))
                    } else {
                        Some(Ok(src))
                    }
                }
                _ => Some(Err(value.clone())),
            };
            sources.push(source);
        }
        for ((dst, _), source) in moves.iter().zip(sources) {
            match source {
                None => {}
                Some(Ok(src)) => self.emit(K::Copy { dst: *dst, src }),
                Some(Err(value)) => self.materialize_into(*dst, &value)?,
            }
        }
        Ok(())
    }

    /// The width of a virtual register (64 bits for a physical one).
    fn width_of(&self, reg: Reg) -> Width {
        match reg {
            Reg::Virt(v) => self.mir.vregs[v.0 as usize].width,
            Reg::Phys(_) => Width::W64,
        }
    }

    /// Puts a value that is not an instruction's register (an argument, a
    /// constant, an address) into `dst`.
    fn materialize_into(&mut self, dst: Reg, value: &Value) -> Result<(), Diagnostic> {
        if let Some(c) = self.const_int(value) {
            let width = self.width_of(dst);
            self.emit(K::MovImm { dst, imm: c, width });
            return Ok(());
        }
        let src = self.reg(value)?;
        self.emit(K::Copy { dst, src });
        Ok(())
    }

    /// The MIR block a branch from IR block `pred` to `succ` jumps to: an
    /// edge block holding the phi copies when the edge is critical.
    fn edge_target(&mut self, pred: u32, succ: ir::BlockId) -> Result<MBlock, Diagnostic> {
        if !self.has_phis(succ) || self.succs[pred as usize].len() <= 1 {
            return Ok(MBlock(succ.0));
        }
        if let Some(&b) = self.edge_blocks.get(&(pred, succ.0)) {
            return Ok(b);
        }
        let block = self.mir.new_block();
        self.edge_blocks.insert((pred, succ.0), block);
        self.edge_order.push((pred, block));
        let saved = self.current;
        self.current = block;
        self.phi_copies(pred, succ)?;
        self.emit(K::Jmp {
            target: MBlock(succ.0),
        });
        self.current = saved;
        Ok(block)
    }

    fn jump(&mut self, target: MBlock) {
        if target.0 != self.current.0 + 1 {
            self.emit(K::Jmp { target });
        }
    }

    fn lower_branch(&mut self, id: InstId) -> Result<(), Diagnostic> {
        let pred = self.current.0;
        // Copies for a single successor go before the branch's compare.
        if let [only] = self.succs[pred as usize].as_slice() {
            let only = *only;
            if self.has_phis(only) {
                self.phi_copies(pred, only)?;
            }
        }
        match &self.f.inst(id).kind {
            InstKind::Br { dest } => {
                let t = self.edge_target(pred, *dest)?;
                self.jump(t);
            }
            InstKind::CondBr {
                cond,
                if_true,
                if_false,
            } => {
                let t = self.edge_target(pred, *if_true)?;
                let e = self.edge_target(pred, *if_false)?;
                if t == e {
                    // Still evaluate nothing: the condition has no effect.
                    self.jump(t);
                    return Ok(());
                }
                let cc = self.condition(cond)?;
                if t.0 == pred + 1 {
                    self.emit(K::Jcc {
                        cond: cc.invert(),
                        target: e,
                    });
                } else {
                    self.emit(K::Jcc {
                        cond: cc,
                        target: t,
                    });
                    self.jump(e);
                }
            }
            InstKind::Switch {
                value,
                default,
                cases,
            } => self.lower_switch(pred, value, *default, cases)?,
            _ => return Err(self.error("internal: not a branch".into())),
        }
        Ok(())
    }

    fn lower_switch(
        &mut self,
        pred: u32,
        value: &Value,
        default: ir::BlockId,
        cases: &[(Constant, ir::BlockId)],
    ) -> Result<(), Diagnostic> {
        let default_target = self.edge_target(pred, default)?;
        let mut targets = Vec::with_capacity(cases.len());
        for (c, dest) in cases {
            let v = c
                .sext_value()
                .ok_or_else(|| self.error("switch case is not an integer".into()))?;
            targets.push((v as i64, self.edge_target(pred, *dest)?));
        }
        targets.sort_by_key(|&(v, _)| v);
        let bits = self.bits_of(value)?;
        let width = container(bits);
        let v = self.normalized(value, true)?;
        let runs = switch_clusters(&targets);
        self.switch_tree(pred, v, width, &runs, default_target);
        Ok(())
    }

    /// Emits a binary search over the sorted case runs: more than three
    /// runs split at the middle one (`v < its first value` goes left);
    /// at most three are tested in turn. Every path not matched ends at
    /// `default`.
    fn switch_tree(
        &mut self,
        pred: u32,
        v: Reg,
        width: Width,
        runs: &[&[(i64, MBlock)]],
        default: MBlock,
    ) {
        if runs.len() > 3 {
            let middle = runs.len() / 2;
            let left = self.mir.new_block();
            self.edge_order.push((pred, left));
            let pivot = runs[middle][0].0;
            let rhs = self.case_operand(pivot, width);
            self.emit(K::Cmp {
                width,
                lhs: Rm::Reg(v),
                rhs,
            });
            self.emit(K::Jcc {
                cond: Cond::L,
                target: left,
            });
            self.switch_tree(pred, v, width, &runs[middle..], default);
            self.current = left;
            self.switch_tree(pred, v, width, &runs[..middle], default);
            return;
        }
        for (i, run) in runs.iter().enumerate() {
            let last = i + 1 == runs.len();
            match run {
                [(lo, _), .., (hi, _)] if run.len() >= JUMP_TABLE_MIN_CASES => {
                    // Values outside [lo, hi] go on to the next run.
                    let next = if last {
                        default
                    } else {
                        let next = self.mir.new_block();
                        self.edge_order.push((pred, next));
                        next
                    };
                    self.jump_table(v, width, (*lo, *hi), run, default, next);
                    if last {
                        return;
                    }
                    self.current = next;
                }
                _ => {
                    for &(c, t) in run.iter() {
                        let rhs = self.case_operand(c, width);
                        self.emit(K::Cmp {
                            width,
                            lhs: Rm::Reg(v),
                            rhs,
                        });
                        self.emit(K::Jcc {
                            cond: Cond::E,
                            target: t,
                        });
                    }
                }
            }
        }
        self.jump(default);
    }

    /// A case value as a compare operand.
    fn case_operand(&mut self, c: i64, width: Width) -> Rmi {
        match i32::try_from(c) {
            Ok(imm) => Rmi::Imm(imm),
            Err(_) => {
                let r = self.vreg(width);
                self.emit(K::MovImm {
                    dst: r,
                    imm: c,
                    width,
                });
                Rmi::Reg(r)
            }
        }
    }

    /// A PC-relative jump table for the sorted, dense `cases` spanning
    /// `lo..=hi`: values outside the span jump to `outside`, holes to
    /// `default`. Ends the current block.
    fn jump_table(
        &mut self,
        v: Reg,
        width: Width,
        (lo, hi): (i64, i64),
        cases: &[(i64, MBlock)],
        default: MBlock,
        outside: MBlock,
    ) {
        // index = v - lo, compared unsigned: below lo wraps above the span.
        let index = self.vreg(Width::W64);
        if lo != 0 || width == Width::W64 {
            self.emit(K::Copy { dst: index, src: v });
        }
        if lo != 0 {
            self.emit(K::Alu {
                op: AluOp::Sub,
                width,
                dst: index,
                src: Rmi::Imm(lo as i32),
            });
        } else if width == Width::W32 {
            // Zero the upper half so the index is a clean 64-bit value.
            self.emit(K::Extend {
                dst: index,
                src: Rm::Reg(v),
                from: Width::W32,
                to: Width::W64,
                signed: false,
            });
        }
        self.emit(K::Cmp {
            width,
            lhs: Rm::Reg(index),
            rhs: Rmi::Imm((hi - lo) as i32),
        });
        self.emit(K::Jcc {
            cond: Cond::A,
            target: outside,
        });
        let mut table = vec![default; (hi - lo + 1) as usize];
        for &(c, t) in cases {
            table[(c - lo) as usize] = t;
        }
        let table_id = mir::JumpTableId(self.mir.jump_tables.len() as u32);
        self.mir.jump_tables.push(table);
        let base = self.vreg(Width::W64);
        self.emit(K::Lea {
            dst: base,
            addr: Address {
                base: AddressBase::JumpTable(table_id),
                index: None,
                disp: 0,
            },
        });
        let entry = self.vreg(Width::W64);
        self.emit(K::Extend {
            dst: entry,
            src: Rm::Mem(Address {
                base: AddressBase::Reg(base),
                index: Some((index, 4)),
                disp: 0,
            }),
            from: Width::W32,
            to: Width::W64,
            signed: true,
        });
        self.emit(K::Alu {
            op: AluOp::Add,
            width: Width::W64,
            dst: entry,
            src: Rmi::Reg(base),
        });
        self.emit(K::JmpIndirect {
            target: entry,
            table: table_id,
        });
    }

    // ---- debug records --------------------------------------------------

    /// A debug operand for a value, with operations that finish describing
    /// it (salvaged folded address arithmetic), or `None` if it has no
    /// location here.
    fn debug_operand(&mut self, v: &Value) -> (DbgOperand, Vec<Op>) {
        match v {
            Value::Arg(n) => (DbgOperand::Reg(self.args[*n as usize]), Vec::new()),
            Value::Const(Constant::Int { value, .. }) => {
                (DbgOperand::Imm(*value as i64), Vec::new())
            }
            Value::Const(Constant::Null) => (DbgOperand::Imm(0), Vec::new()),
            Value::Const(_) => (DbgOperand::NoReg, Vec::new()),
            Value::Inst(id) => match self.lowering[id.0 as usize] {
                Lowering::Normal => match self.values[id.0 as usize] {
                    Some(r) => (DbgOperand::Reg(r), Vec::new()),
                    None => (DbgOperand::NoReg, Vec::new()),
                },
                Lowering::Slot(slot) => (DbgOperand::StackSlot(slot), Vec::new()),
                Lowering::FusedCompare => (DbgOperand::NoReg, Vec::new()),
                Lowering::FoldedAddress => self.salvage_gep(*id),
            },
        }
    }

    /// Describes a folded GEP with a constant offset from a describable base.
    fn salvage_gep(&mut self, id: InstId) -> (DbgOperand, Vec<Op>) {
        let InstKind::Gep {
            source,
            base,
            indices,
            ..
        } = &self.f.inst(id).kind
        else {
            return (DbgOperand::NoReg, Vec::new());
        };
        let Some(offset) = self.module.gep_const_offset(source, indices) else {
            return (DbgOperand::NoReg, Vec::new());
        };
        let (operand, mut ops) = self.debug_operand(base);
        if operand == DbgOperand::NoReg {
            return (operand, ops);
        }
        match offset {
            0 => {}
            o if o > 0 => ops.push(Op::PlusUconst(o as u64)),
            o => ops.extend([Op::Consts(o), Op::Plus]),
        }
        (operand, ops)
    }

    fn lower_record(&mut self, record: &ir::DebugRecord) -> Result<(), Diagnostic> {
        if record.kind == RecordKind::Label {
            return Ok(());
        }
        let debug = &self.module.debug;
        let expr = debug.expr(record.expr);
        let inlined_at = debug.location(record.loc).inlined_at;
        let signed = debug::variable_is_signed(debug, record.variable);
        let mut operands = Vec::with_capacity(record.locations.len());
        let mut salvage = Vec::with_capacity(record.locations.len());
        let mut arg_types = Vec::with_capacity(record.locations.len());
        let declare = record.kind == RecordKind::Declare;
        for v in &record.locations {
            let (operand, ops) = self.debug_operand(v);
            let bits = self.bits_of(v).unwrap_or(64).max(1) as u16;
            arg_types.push(ArgType { bits, signed });
            operands.push(operand);
            salvage.push(ops);
        }
        let translated = debug::translate_expr(&expr.ops, &salvage);
        let (ops, fragment, defined) = match translated {
            Some(t) => (t.ops, t.fragment, true),
            None => (Vec::new(), expr.fragment(), false),
        };
        if !defined || (declare && !matches!(operands.as_slice(), [DbgOperand::StackSlot(_)])) {
            operands.iter_mut().for_each(|o| *o = DbgOperand::NoReg);
        }
        let variable = self.debug.intern_variable(VariableKey {
            variable: record.variable,
            inlined_at,
            fragment,
        });
        let expr = self.debug.intern_expr(DebugExpr {
            ops,
            args: arg_types,
        });
        let loc = self.loc;
        self.loc = mir_loc(Some(record.loc));
        self.emit(K::DbgValue(DbgValue {
            variable,
            operands,
            expr,
            indirect: declare,
        }));
        self.loc = loc;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_runs_become_tables_and_outliers_single_compares() {
        let cases = |values: &[i64]| -> Vec<(i64, MBlock)> {
            values.iter().map(|&v| (v, MBlock(0))).collect()
        };
        let shape = |values: &[i64]| -> Vec<Vec<i64>> {
            switch_clusters(&cases(values))
                .iter()
                .map(|run| run.iter().map(|&(v, _)| v).collect())
                .collect()
        };
        // switch_table.c's classify: 0..4 and 7 in one table, 100 alone.
        assert_eq!(
            shape(&[0, 1, 2, 3, 4, 7, 100]),
            [vec![0, 1, 2, 3, 4, 7], vec![100]]
        );
        // Too few cases for a table.
        assert_eq!(shape(&[1, 2, 3]), [vec![1], vec![2], vec![3]]);
        // Sparse: no table.
        assert_eq!(
            shape(&[0, 10, 20, 30]),
            [vec![0], vec![10], vec![20], vec![30]]
        );
        // Two tables.
        assert_eq!(
            shape(&[-3, -2, -1, 0, 1000, 1001, 1002, 1004]),
            [vec![-3, -2, -1, 0], vec![1000, 1001, 1002, 1004]]
        );
    }
}
