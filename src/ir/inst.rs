//! Instructions: one operation each, with its result type, source location
//! and the debug records that precede it.
//!
//! In: nothing (plain data). Out: [`Inst`] and [`InstKind`] with their
//! operand enums. Promise (ARCHITECTURE.md decision 1): debug records are
//! never instructions; each one rides on the instruction it precedes in
//! [`Inst::records`], so a pass walking instructions skips nothing.

use super::debug::{DebugRecord, LocId, MdId, MdRef};
use super::types::{FunctionType, Type};
use super::value::{BlockId, Constant, GepFlags, Value};
use crate::error::Pos;

/// One instruction in a function's arena.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    /// The operation and its operands.
    pub kind: InstKind,
    /// The result type (`Type::Void` when it yields nothing).
    pub ty: Type,
    /// The result's name without `%`, or `None` for an unnamed (numbered)
    /// value; the printer numbers unnamed values in order, as LLVM does.
    pub name: Option<String>,
    /// The `!dbg` location, if any.
    pub dbg: Option<LocId>,
    /// The attached `!DIAssignID` (assignment tracking), if any.
    pub assign_id: Option<MdId>,
    /// Other metadata attachments (`!tbaa`, `!llvm.loop`, `!range`...), by
    /// kind name without `!`, in order.
    pub metadata: Vec<(String, MdRef)>,
    /// Function attribute groups of a call site (`#N` after the arguments).
    pub attr_groups: Vec<u32>,
    /// Debug records that come immediately before this instruction, in order.
    pub records: Vec<DebugRecord>,
    /// Where the instruction was read from (line 0 when made by a pass).
    pub pos: Pos,
}

impl Inst {
    /// A new instruction without name, location, records or position.
    pub fn new(kind: InstKind, ty: Type) -> Inst {
        Inst {
            kind,
            ty,
            name: None,
            dbg: None,
            assign_id: None,
            metadata: Vec::new(),
            attr_groups: Vec::new(),
            records: Vec::new(),
            pos: Pos::default(),
        }
    }

    /// Whether the instruction ends a block (br, switch, ret, unreachable).
    pub fn is_terminator(&self) -> bool {
        matches!(
            self.kind,
            InstKind::Br { .. }
                | InstKind::CondBr { .. }
                | InstKind::Switch { .. }
                | InstKind::Ret { .. }
                | InstKind::IndirectBr { .. }
                | InstKind::Invoke { .. }
                | InstKind::Resume { .. }
                | InstKind::Unreachable
        )
    }

    /// The blocks a terminator may branch to, in operand order (duplicates kept).
    pub fn successors(&self) -> Vec<BlockId> {
        match &self.kind {
            InstKind::Br { dest } => vec![*dest],
            InstKind::CondBr {
                if_true, if_false, ..
            } => vec![*if_true, *if_false],
            InstKind::Switch { default, cases, .. } => std::iter::once(*default)
                .chain(cases.iter().map(|(_, dest)| *dest))
                .collect(),
            InstKind::IndirectBr { dests, .. } => dests.clone(),
            InstKind::Invoke { normal, unwind, .. } => vec![*normal, *unwind],
            _ => Vec::new(),
        }
    }

    /// Every value operand, in operand order (phi incoming values included;
    /// debug record operands are not: they are not uses by the code).
    /// Up to three are kept inline, so the common case does not allocate.
    pub fn operands(&self) -> Operands<'_> {
        match &self.kind {
            InstKind::Binary { lhs, rhs, .. }
            | InstKind::ICmp { lhs, rhs, .. }
            | InstKind::FBinary { lhs, rhs, .. }
            | InstKind::FCmp { lhs, rhs, .. } => Operands::inline(&[lhs, rhs]),
            InstKind::Select {
                cond,
                if_true,
                if_false,
            } => Operands::inline(&[cond, if_true, if_false]),
            InstKind::Phi { incoming } => Operands::collect(incoming.iter().map(|(v, _)| v)),
            InstKind::Cast { value, .. }
            | InstKind::FNeg { value, .. }
            | InstKind::VaArg { list: value } => Operands::inline(&[value]),
            InstKind::ExtractElement { vector, index } => Operands::inline(&[vector, index]),
            InstKind::InsertElement {
                vector,
                elem,
                index,
            } => Operands::inline(&[vector, elem, index]),
            InstKind::ShuffleVector { lhs, rhs, .. } => Operands::inline(&[lhs, rhs]),
            InstKind::ExtractValue { aggregate, .. } => Operands::inline(&[aggregate]),
            InstKind::InsertValue {
                aggregate, elem, ..
            } => Operands::inline(&[aggregate, elem]),
            InstKind::CmpXchg { ptr, cmp, new, .. } => Operands::inline(&[ptr, cmp, new]),
            InstKind::AtomicRmw { ptr, value, .. } => Operands::inline(&[ptr, value]),
            InstKind::Fence { .. } => Operands::inline(&[]),
            InstKind::IndirectBr { address, .. } => Operands::inline(&[address]),
            InstKind::Load { ptr, .. } => Operands::inline(&[ptr]),
            InstKind::Store { value, ptr, .. } => Operands::inline(&[value, ptr]),
            InstKind::Gep { base, indices, .. } => {
                Operands::collect(std::iter::once(base).chain(indices.iter()))
            }
            InstKind::Alloca { count, .. } => Operands::collect(count.iter()),
            InstKind::Call { callee, args, .. } | InstKind::Invoke { callee, args, .. } => {
                Operands::collect(std::iter::once(callee).chain(args.iter().map(|a| &a.value)))
            }
            InstKind::LandingPad { .. } => Operands::inline(&[]),
            InstKind::Resume { value } => Operands::inline(&[value]),
            InstKind::CondBr { cond, .. } => Operands::inline(&[cond]),
            InstKind::Switch { value, .. } => Operands::inline(&[value]),
            InstKind::Ret { value } => Operands::collect(value.iter()),
            InstKind::Br { .. } | InstKind::Unreachable => Operands::inline(&[]),
            InstKind::Freeze { value } => Operands::inline(&[value]),
        }
    }
}

/// Fills the unused inline places of an [`Operands`] (never read).
static NO_OPERAND: Value = Value::Arg(0);

/// How many operands [`Operands`] keeps without allocating.
const INLINE_OPERANDS: usize = 3;

/// The value operands of one instruction ([`Inst::operands`]): a slice of
/// references, kept inline when there are at most three.
#[derive(Clone, Debug)]
pub struct Operands<'a> {
    /// How many of `inline` are operands (unused when `heap` is non-empty).
    len: usize,
    /// The operands of an instruction with few of them.
    inline: [&'a Value; INLINE_OPERANDS],
    /// The operands of an instruction with more than fit inline.
    heap: Vec<&'a Value>,
}

impl<'a> Operands<'a> {
    fn inline(values: &[&'a Value]) -> Operands<'a> {
        let mut inline = [&NO_OPERAND; INLINE_OPERANDS];
        inline[..values.len()].copy_from_slice(values);
        Operands {
            len: values.len(),
            inline,
            heap: Vec::new(),
        }
    }

    fn collect(values: impl Iterator<Item = &'a Value>) -> Operands<'a> {
        let mut operands = Operands::inline(&[]);
        for value in values {
            if operands.len < INLINE_OPERANDS {
                operands.inline[operands.len] = value;
                operands.len += 1;
            } else {
                if operands.heap.is_empty() {
                    operands.heap.extend_from_slice(&operands.inline);
                }
                operands.heap.push(value);
            }
        }
        operands
    }
}

impl<'a> std::ops::Deref for Operands<'a> {
    type Target = [&'a Value];

    fn deref(&self) -> &[&'a Value] {
        if self.heap.is_empty() {
            &self.inline[..self.len]
        } else {
            &self.heap
        }
    }
}

impl<'a> IntoIterator for Operands<'a> {
    type Item = &'a Value;
    type IntoIter = OperandsIter<'a>;

    fn into_iter(self) -> OperandsIter<'a> {
        OperandsIter {
            operands: self,
            next: 0,
        }
    }
}

/// The iterator of [`Operands`] by value.
#[derive(Clone, Debug)]
pub struct OperandsIter<'a> {
    operands: Operands<'a>,
    next: usize,
}

impl<'a> Iterator for OperandsIter<'a> {
    type Item = &'a Value;

    fn next(&mut self) -> Option<&'a Value> {
        let value = self.operands.get(self.next).copied()?;
        self.next += 1;
        Some(value)
    }
}

impl Inst {
    /// Every value operand, mutable, in the order of [`Inst::operands`]
    /// (for replacing uses).
    pub fn operands_mut(&mut self) -> Vec<&mut Value> {
        match &mut self.kind {
            InstKind::Binary { lhs, rhs, .. }
            | InstKind::ICmp { lhs, rhs, .. }
            | InstKind::FBinary { lhs, rhs, .. }
            | InstKind::FCmp { lhs, rhs, .. } => vec![lhs, rhs],
            InstKind::Select {
                cond,
                if_true,
                if_false,
            } => vec![cond, if_true, if_false],
            InstKind::Phi { incoming } => incoming.iter_mut().map(|(v, _)| v).collect(),
            InstKind::Cast { value, .. }
            | InstKind::Freeze { value }
            | InstKind::FNeg { value, .. }
            | InstKind::VaArg { list: value } => vec![value],
            InstKind::ExtractElement { vector, index } => vec![vector, index],
            InstKind::InsertElement {
                vector,
                elem,
                index,
            } => vec![vector, elem, index],
            InstKind::ShuffleVector { lhs, rhs, .. } => vec![lhs, rhs],
            InstKind::ExtractValue { aggregate, .. } => vec![aggregate],
            InstKind::InsertValue {
                aggregate, elem, ..
            } => vec![aggregate, elem],
            InstKind::CmpXchg { ptr, cmp, new, .. } => vec![ptr, cmp, new],
            InstKind::AtomicRmw { ptr, value, .. } => vec![ptr, value],
            InstKind::Fence { .. } => Vec::new(),
            InstKind::IndirectBr { address, .. } => vec![address],
            InstKind::Load { ptr, .. } => vec![ptr],
            InstKind::Store { value, ptr, .. } => vec![value, ptr],
            InstKind::Gep { base, indices, .. } => {
                std::iter::once(base).chain(indices.iter_mut()).collect()
            }
            InstKind::Alloca { count, .. } => count.iter_mut().collect(),
            InstKind::Call { callee, args, .. } | InstKind::Invoke { callee, args, .. } => {
                std::iter::once(callee)
                    .chain(args.iter_mut().map(|a| &mut a.value))
                    .collect()
            }
            InstKind::LandingPad { .. } => Vec::new(),
            InstKind::Resume { value } => vec![value],
            InstKind::CondBr { cond, .. } => vec![cond],
            InstKind::Switch { value, .. } => vec![value],
            InstKind::Ret { value } => value.iter_mut().collect(),
            InstKind::Br { .. } | InstKind::Unreachable => Vec::new(),
        }
    }
}

/// The operation of an instruction and its operands.
#[derive(Clone, Debug, PartialEq)]
pub enum InstKind {
    /// `add/sub/mul/... [flags] ty lhs, rhs`; the result type is the operands' type.
    Binary {
        /// The operation.
        op: BinOp,
        /// `nsw`, `nuw`, `exact`, `disjoint`.
        flags: ArithFlags,
        /// Left operand.
        lhs: Value,
        /// Right operand.
        rhs: Value,
    },
    /// `icmp pred ty lhs, rhs` (result `i1`).
    ICmp {
        /// The comparison.
        pred: ICmpPred,
        /// Left operand.
        lhs: Value,
        /// Right operand.
        rhs: Value,
    },
    /// `select i1 cond, ty a, ty b`.
    Select {
        /// The condition (`i1`).
        cond: Value,
        /// Chosen when the condition is true.
        if_true: Value,
        /// Chosen when the condition is false.
        if_false: Value,
    },
    /// `phi ty [v, %bb], ...`.
    Phi {
        /// Incoming value per predecessor block.
        incoming: Vec<(Value, BlockId)>,
    },
    /// `zext/sext/trunc/bitcast/ptrtoint/inttoptr ty v to ty2`; the result
    /// type is [`Inst::ty`].
    Cast {
        /// Which cast.
        op: CastOp,
        /// `nneg` (zext), `nuw`/`nsw` (trunc).
        flags: ArithFlags,
        /// The operand.
        value: Value,
    },
    /// `load [volatile] ty, ptr p [, align N]`; the loaded type is [`Inst::ty`].
    Load {
        /// The address.
        ptr: Value,
        /// `align N`, if written.
        align: Option<u32>,
        /// `volatile`.
        volatile: bool,
        /// `atomic ... [syncscope("s")] ordering`, if atomic.
        atomic: Option<Atomic>,
    },
    /// `store [volatile] ty v, ptr p [, align N]`.
    Store {
        /// The value stored.
        value: Value,
        /// The address.
        ptr: Value,
        /// `align N`, if written.
        align: Option<u32>,
        /// `volatile`.
        volatile: bool,
        /// `atomic ... [syncscope("s")] ordering`, if atomic.
        atomic: Option<Atomic>,
    },
    /// `getelementptr [flags] source, ptr base, indices...` (result `ptr`).
    Gep {
        /// `inbounds`, `nuw`, `nusw`.
        flags: GepFlags,
        /// The source element type the first index scales by.
        source: Type,
        /// The base address.
        base: Value,
        /// The indices (integers; struct indices are `i32` constants).
        indices: Vec<Value>,
    },
    /// `alloca ty [, iN count] [, align N]` (result `ptr`).
    Alloca {
        /// The allocated type.
        allocated: Type,
        /// Number of elements, if written.
        count: Option<Value>,
        /// `align N`, if written.
        align: Option<u32>,
    },
    /// `[tail|musttail|notail] call ret @f(args)`; the result type is [`Inst::ty`].
    Call {
        /// `tail`, `musttail`, `notail` or none.
        tail: TailKind,
        /// The callee's signature.
        fn_ty: FunctionType,
        /// The called value (usually `@f`, a global function).
        callee: Value,
        /// Arguments with their ABI attributes.
        args: Vec<CallArg>,
        /// Return-value attributes (`signext`, `zeroext`, `noundef`).
        ret_attrs: ParamAttrs,
    },
    /// `fadd/fsub/fmul/fdiv/frem [fast-math flags] ty lhs, rhs` over a
    /// floating-point type or vector of them.
    FBinary {
        /// The operation.
        op: FBinOp,
        /// Fast-math flags.
        fmf: FastMath,
        /// Left operand.
        lhs: Value,
        /// Right operand.
        rhs: Value,
    },
    /// `fneg [fast-math flags] ty v`.
    FNeg {
        /// Fast-math flags.
        fmf: FastMath,
        /// The operand.
        value: Value,
    },
    /// `fcmp [fast-math flags] pred ty lhs, rhs` (result `i1` or `<N x i1>`).
    FCmp {
        /// The comparison.
        pred: FCmpPred,
        /// Fast-math flags.
        fmf: FastMath,
        /// Left operand.
        lhs: Value,
        /// Right operand.
        rhs: Value,
    },
    /// `extractelement <N x T> v, iK idx` (result `T`).
    ExtractElement {
        /// The vector.
        vector: Value,
        /// The lane index.
        index: Value,
    },
    /// `insertelement <N x T> v, T e, iK idx` (result the vector type).
    InsertElement {
        /// The vector.
        vector: Value,
        /// The new lane value.
        elem: Value,
        /// The lane index.
        index: Value,
    },
    /// `shufflevector <N x T> a, <N x T> b, <M x i32> mask` (result `<M x T>`).
    ShuffleVector {
        /// First source vector (lanes 0..N).
        lhs: Value,
        /// Second source vector (lanes N..2N).
        rhs: Value,
        /// The lane each result lane takes; `None` for a poison/undef lane.
        mask: Vec<Option<u32>>,
    },
    /// `extractvalue agg v, i, j...` (result the member's type).
    ExtractValue {
        /// The aggregate.
        aggregate: Value,
        /// The path of member indices.
        indices: Vec<u32>,
    },
    /// `insertvalue agg v, T e, i, j...` (result the aggregate type).
    InsertValue {
        /// The aggregate.
        aggregate: Value,
        /// The new member value.
        elem: Value,
        /// The path of member indices.
        indices: Vec<u32>,
    },
    /// `cmpxchg [weak] [volatile] ptr p, T cmp, T new [syncscope] success
    /// failure [, align N]` (result `{ T, i1 }`).
    CmpXchg {
        /// The address.
        ptr: Value,
        /// The expected value.
        cmp: Value,
        /// The value stored when the expected one is found.
        new: Value,
        /// `weak`: may fail spuriously.
        weak: bool,
        /// `volatile`.
        volatile: bool,
        /// `syncscope("...")`, if written.
        syncscope: Option<String>,
        /// Ordering on success.
        success: Ordering,
        /// Ordering on failure.
        failure: Ordering,
        /// `align N`, if written.
        align: Option<u32>,
    },
    /// `atomicrmw [volatile] op ptr p, T v [syncscope] ordering [, align N]`
    /// (result `T`, the old value).
    AtomicRmw {
        /// The operation.
        op: RmwOp,
        /// The address.
        ptr: Value,
        /// The operand.
        value: Value,
        /// `volatile`.
        volatile: bool,
        /// The ordering and scope.
        atomic: Atomic,
        /// `align N`, if written.
        align: Option<u32>,
    },
    /// `fence [syncscope("...")] ordering`.
    Fence {
        /// The ordering and scope.
        atomic: Atomic,
    },
    /// `va_arg ptr list, T` (result `T`).
    VaArg {
        /// The `va_list` address.
        list: Value,
    },
    /// `indirectbr ptr addr, [label %a, label %b ...]`.
    IndirectBr {
        /// The address jumped to (a `blockaddress`).
        address: Value,
        /// Every block it may go to.
        dests: Vec<BlockId>,
    },
    /// `freeze ty v`.
    Freeze {
        /// The operand.
        value: Value,
    },
    /// `br label %dest`.
    Br {
        /// The destination.
        dest: BlockId,
    },
    /// `br i1 cond, label %t, label %f`.
    CondBr {
        /// The condition (`i1`).
        cond: Value,
        /// Taken when true.
        if_true: BlockId,
        /// Taken when false.
        if_false: BlockId,
    },
    /// `switch ty v, label %default [ ty c, label %dest ... ]`.
    Switch {
        /// The value switched on.
        value: Value,
        /// Where other values go.
        default: BlockId,
        /// Case values (integer constants) and their destinations.
        cases: Vec<(Constant, BlockId)>,
    },
    /// `invoke ret @f(args) to label %normal unwind label %unwind`: a call
    /// (never a tail call) that returns to `normal`, or, when the callee
    /// throws, lands in `unwind`, a block opening with a `landingpad`; the
    /// result type is [`Inst::ty`] and the result is defined on the normal
    /// edge only.
    Invoke {
        /// The callee's signature.
        fn_ty: FunctionType,
        /// The called value.
        callee: Value,
        /// Arguments with their ABI attributes.
        args: Vec<CallArg>,
        /// Return-value attributes.
        ret_attrs: ParamAttrs,
        /// Where a return goes.
        normal: BlockId,
        /// Where an exception goes (the landing pad).
        unwind: BlockId,
    },
    /// `landingpad { ptr, i32 } [cleanup] clauses...`: the first non-phi
    /// instruction of a block an `invoke` unwinds to; its result is the
    /// exception pointer and the selector of the clause that matched.
    LandingPad {
        /// `cleanup`: the pad runs even when no clause matches.
        cleanup: bool,
        /// The `catch` and `filter` clauses, in order.
        clauses: Vec<LandingPadClause>,
    },
    /// `resume ty v`: continues unwinding the exception a landing pad
    /// received (`v` is its `{ ptr, i32 }` value).
    Resume {
        /// The landing pad's value.
        value: Value,
    },
    /// `ret void` or `ret ty v`.
    Ret {
        /// The returned value, if any.
        value: Option<Value>,
    },
    /// `unreachable`.
    Unreachable,
}

impl InstKind {
    /// The mnemonic of the instruction (`add`, `fcmp`, `call`, `br`).
    pub fn opcode(&self) -> &'static str {
        match self {
            InstKind::Binary { op, .. } => op.name(),
            InstKind::ICmp { .. } => "icmp",
            InstKind::Select { .. } => "select",
            InstKind::Phi { .. } => "phi",
            InstKind::Cast { op, .. } => op.name(),
            InstKind::Load { .. } => "load",
            InstKind::Store { .. } => "store",
            InstKind::Gep { .. } => "getelementptr",
            InstKind::Alloca { .. } => "alloca",
            InstKind::Call { .. } => "call",
            InstKind::Invoke { .. } => "invoke",
            InstKind::LandingPad { .. } => "landingpad",
            InstKind::Resume { .. } => "resume",
            InstKind::FBinary { op, .. } => op.name(),
            InstKind::FNeg { .. } => "fneg",
            InstKind::FCmp { .. } => "fcmp",
            InstKind::ExtractElement { .. } => "extractelement",
            InstKind::InsertElement { .. } => "insertelement",
            InstKind::ShuffleVector { .. } => "shufflevector",
            InstKind::ExtractValue { .. } => "extractvalue",
            InstKind::InsertValue { .. } => "insertvalue",
            InstKind::CmpXchg { .. } => "cmpxchg",
            InstKind::AtomicRmw { .. } => "atomicrmw",
            InstKind::Fence { .. } => "fence",
            InstKind::VaArg { .. } => "va_arg",
            InstKind::IndirectBr { .. } => "indirectbr",
            InstKind::Freeze { .. } => "freeze",
            InstKind::Br { .. } | InstKind::CondBr { .. } => "br",
            InstKind::Switch { .. } => "switch",
            InstKind::Ret { .. } => "ret",
            InstKind::Unreachable => "unreachable",
        }
    }
}

/// Integer binary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `add`.
    Add,
    /// `sub`.
    Sub,
    /// `mul`.
    Mul,
    /// `sdiv`.
    SDiv,
    /// `udiv`.
    UDiv,
    /// `srem`.
    SRem,
    /// `urem`.
    URem,
    /// `shl`.
    Shl,
    /// `lshr`.
    LShr,
    /// `ashr`.
    AShr,
    /// `and`.
    And,
    /// `or`.
    Or,
    /// `xor`.
    Xor,
}

impl BinOp {
    /// The mnemonic as written in .ll text.
    pub fn name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::SDiv => "sdiv",
            BinOp::UDiv => "udiv",
            BinOp::SRem => "srem",
            BinOp::URem => "urem",
            BinOp::Shl => "shl",
            BinOp::LShr => "lshr",
            BinOp::AShr => "ashr",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
        }
    }

    /// The operation for a .ll mnemonic.
    pub fn from_name(name: &str) -> Option<BinOp> {
        Some(match name {
            "add" => BinOp::Add,
            "sub" => BinOp::Sub,
            "mul" => BinOp::Mul,
            "sdiv" => BinOp::SDiv,
            "udiv" => BinOp::UDiv,
            "srem" => BinOp::SRem,
            "urem" => BinOp::URem,
            "shl" => BinOp::Shl,
            "lshr" => BinOp::LShr,
            "ashr" => BinOp::AShr,
            "and" => BinOp::And,
            "or" => BinOp::Or,
            "xor" => BinOp::Xor,
            _ => return None,
        })
    }
}

/// Floating-point binary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FBinOp {
    /// `fadd`.
    Add,
    /// `fsub`.
    Sub,
    /// `fmul`.
    Mul,
    /// `fdiv`.
    Div,
    /// `frem`.
    Rem,
}

impl FBinOp {
    /// The mnemonic as written in .ll text.
    pub fn name(self) -> &'static str {
        match self {
            FBinOp::Add => "fadd",
            FBinOp::Sub => "fsub",
            FBinOp::Mul => "fmul",
            FBinOp::Div => "fdiv",
            FBinOp::Rem => "frem",
        }
    }

    /// The operation for a .ll mnemonic.
    pub fn from_name(name: &str) -> Option<FBinOp> {
        Some(match name {
            "fadd" => FBinOp::Add,
            "fsub" => FBinOp::Sub,
            "fmul" => FBinOp::Mul,
            "fdiv" => FBinOp::Div,
            "frem" => FBinOp::Rem,
            _ => return None,
        })
    }
}

/// Fast-math flags of floating-point operations (`fast` is all of them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FastMath {
    /// `reassoc`.
    pub reassoc: bool,
    /// `nnan`.
    pub nnan: bool,
    /// `ninf`.
    pub ninf: bool,
    /// `nsz`.
    pub nsz: bool,
    /// `arcp`.
    pub arcp: bool,
    /// `contract`.
    pub contract: bool,
    /// `afn`.
    pub afn: bool,
}

impl FastMath {
    /// Sets the flag a .ll word names (`fast` sets all); false if the word is none.
    pub fn set(&mut self, word: &str) -> bool {
        match word {
            "fast" => {
                *self = FastMath {
                    reassoc: true,
                    nnan: true,
                    ninf: true,
                    nsz: true,
                    arcp: true,
                    contract: true,
                    afn: true,
                }
            }
            "reassoc" => self.reassoc = true,
            "nnan" => self.nnan = true,
            "ninf" => self.ninf = true,
            "nsz" => self.nsz = true,
            "arcp" => self.arcp = true,
            "contract" => self.contract = true,
            "afn" => self.afn = true,
            _ => return false,
        }
        true
    }

    /// The flags as .ll words, in LLVM's order (`fast` when all are set).
    pub fn words(self) -> Vec<&'static str> {
        let all = [
            (self.reassoc, "reassoc"),
            (self.nnan, "nnan"),
            (self.ninf, "ninf"),
            (self.nsz, "nsz"),
            (self.arcp, "arcp"),
            (self.contract, "contract"),
            (self.afn, "afn"),
        ];
        if all.iter().all(|(on, _)| *on) {
            return vec!["fast"];
        }
        all.iter().filter(|(on, _)| *on).map(|(_, w)| *w).collect()
    }
}

/// Floating-point comparison predicates (`o`: ordered, false if either
/// operand is NaN; `u`: unordered, true if either is).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FCmpPred {
    /// `false`: always false.
    False,
    /// `oeq`.
    Oeq,
    /// `ogt`.
    Ogt,
    /// `oge`.
    Oge,
    /// `olt`.
    Olt,
    /// `ole`.
    Ole,
    /// `one`.
    One,
    /// `ord`: neither is NaN.
    Ord,
    /// `ueq`.
    Ueq,
    /// `ugt`.
    Ugt,
    /// `uge`.
    Uge,
    /// `ult`.
    Ult,
    /// `ule`.
    Ule,
    /// `une`.
    Une,
    /// `uno`: either is NaN.
    Uno,
    /// `true`: always true.
    True,
}

impl FCmpPred {
    /// Every predicate, in LLVM's numbering order.
    pub const ALL: [FCmpPred; 16] = [
        FCmpPred::False,
        FCmpPred::Oeq,
        FCmpPred::Ogt,
        FCmpPred::Oge,
        FCmpPred::Olt,
        FCmpPred::Ole,
        FCmpPred::One,
        FCmpPred::Ord,
        FCmpPred::Uno,
        FCmpPred::Ueq,
        FCmpPred::Ugt,
        FCmpPred::Uge,
        FCmpPred::Ult,
        FCmpPred::Ule,
        FCmpPred::Une,
        FCmpPred::True,
    ];

    /// The predicate as written in .ll text.
    pub fn name(self) -> &'static str {
        match self {
            FCmpPred::False => "false",
            FCmpPred::Oeq => "oeq",
            FCmpPred::Ogt => "ogt",
            FCmpPred::Oge => "oge",
            FCmpPred::Olt => "olt",
            FCmpPred::Ole => "ole",
            FCmpPred::One => "one",
            FCmpPred::Ord => "ord",
            FCmpPred::Ueq => "ueq",
            FCmpPred::Ugt => "ugt",
            FCmpPred::Uge => "uge",
            FCmpPred::Ult => "ult",
            FCmpPred::Ule => "ule",
            FCmpPred::Une => "une",
            FCmpPred::Uno => "uno",
            FCmpPred::True => "true",
        }
    }

    /// The predicate for its .ll name.
    pub fn from_name(name: &str) -> Option<FCmpPred> {
        FCmpPred::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// Memory orderings of atomic operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ordering {
    /// `unordered`.
    Unordered,
    /// `monotonic` (C `relaxed`).
    Monotonic,
    /// `acquire`.
    Acquire,
    /// `release`.
    Release,
    /// `acq_rel`.
    AcqRel,
    /// `seq_cst`.
    SeqCst,
}

impl Ordering {
    /// The ordering as written in .ll text.
    pub fn name(self) -> &'static str {
        match self {
            Ordering::Unordered => "unordered",
            Ordering::Monotonic => "monotonic",
            Ordering::Acquire => "acquire",
            Ordering::Release => "release",
            Ordering::AcqRel => "acq_rel",
            Ordering::SeqCst => "seq_cst",
        }
    }

    /// The ordering for its .ll name.
    pub fn from_name(name: &str) -> Option<Ordering> {
        Some(match name {
            "unordered" => Ordering::Unordered,
            "monotonic" => Ordering::Monotonic,
            "acquire" => Ordering::Acquire,
            "release" => Ordering::Release,
            "acq_rel" => Ordering::AcqRel,
            "seq_cst" => Ordering::SeqCst,
            _ => return None,
        })
    }
}

/// The ordering and synchronisation scope of an atomic access or fence.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Atomic {
    /// The ordering.
    pub ordering: Ordering,
    /// `syncscope("name")`; `None` is the whole system.
    pub syncscope: Option<String>,
}

/// The operations of `atomicrmw`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RmwOp {
    /// `xchg`.
    Xchg,
    /// `add`.
    Add,
    /// `sub`.
    Sub,
    /// `and`.
    And,
    /// `nand`.
    Nand,
    /// `or`.
    Or,
    /// `xor`.
    Xor,
    /// `max` (signed).
    Max,
    /// `min` (signed).
    Min,
    /// `umax`.
    UMax,
    /// `umin`.
    UMin,
    /// `fadd`.
    FAdd,
    /// `fsub`.
    FSub,
    /// `fmax`.
    FMax,
    /// `fmin`.
    FMin,
    /// `uinc_wrap`.
    UIncWrap,
    /// `udec_wrap`.
    UDecWrap,
}

impl RmwOp {
    const ALL: [RmwOp; 17] = [
        RmwOp::Xchg,
        RmwOp::Add,
        RmwOp::Sub,
        RmwOp::And,
        RmwOp::Nand,
        RmwOp::Or,
        RmwOp::Xor,
        RmwOp::Max,
        RmwOp::Min,
        RmwOp::UMax,
        RmwOp::UMin,
        RmwOp::FAdd,
        RmwOp::FSub,
        RmwOp::FMax,
        RmwOp::FMin,
        RmwOp::UIncWrap,
        RmwOp::UDecWrap,
    ];

    /// The operation as written in .ll text.
    pub fn name(self) -> &'static str {
        match self {
            RmwOp::Xchg => "xchg",
            RmwOp::Add => "add",
            RmwOp::Sub => "sub",
            RmwOp::And => "and",
            RmwOp::Nand => "nand",
            RmwOp::Or => "or",
            RmwOp::Xor => "xor",
            RmwOp::Max => "max",
            RmwOp::Min => "min",
            RmwOp::UMax => "umax",
            RmwOp::UMin => "umin",
            RmwOp::FAdd => "fadd",
            RmwOp::FSub => "fsub",
            RmwOp::FMax => "fmax",
            RmwOp::FMin => "fmin",
            RmwOp::UIncWrap => "uinc_wrap",
            RmwOp::UDecWrap => "udec_wrap",
        }
    }

    /// The operation for its .ll name.
    pub fn from_name(name: &str) -> Option<RmwOp> {
        RmwOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether the operation works on floating-point values.
    pub fn is_fp(self) -> bool {
        matches!(self, RmwOp::FAdd | RmwOp::FSub | RmwOp::FMax | RmwOp::FMin)
    }
}

/// Poison-generating and hint flags of arithmetic and casts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ArithFlags {
    /// `nuw`: no unsigned wrap (add/sub/mul/shl, trunc).
    pub nuw: bool,
    /// `nsw`: no signed wrap (add/sub/mul/shl, trunc).
    pub nsw: bool,
    /// `exact` (sdiv/udiv/lshr/ashr).
    pub exact: bool,
    /// `disjoint` (or).
    pub disjoint: bool,
    /// `nneg` (zext).
    pub nneg: bool,
}

/// Integer comparison predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ICmpPred {
    /// `eq`.
    Eq,
    /// `ne`.
    Ne,
    /// `ugt`.
    Ugt,
    /// `uge`.
    Uge,
    /// `ult`.
    Ult,
    /// `ule`.
    Ule,
    /// `sgt`.
    Sgt,
    /// `sge`.
    Sge,
    /// `slt`.
    Slt,
    /// `sle`.
    Sle,
}

impl ICmpPred {
    /// The predicate as written in .ll text.
    pub fn name(self) -> &'static str {
        match self {
            ICmpPred::Eq => "eq",
            ICmpPred::Ne => "ne",
            ICmpPred::Ugt => "ugt",
            ICmpPred::Uge => "uge",
            ICmpPred::Ult => "ult",
            ICmpPred::Ule => "ule",
            ICmpPred::Sgt => "sgt",
            ICmpPred::Sge => "sge",
            ICmpPred::Slt => "slt",
            ICmpPred::Sle => "sle",
        }
    }

    /// The predicate for its .ll name.
    pub fn from_name(name: &str) -> Option<ICmpPred> {
        Some(match name {
            "eq" => ICmpPred::Eq,
            "ne" => ICmpPred::Ne,
            "ugt" => ICmpPred::Ugt,
            "uge" => ICmpPred::Uge,
            "ult" => ICmpPred::Ult,
            "ule" => ICmpPred::Ule,
            "sgt" => ICmpPred::Sgt,
            "sge" => ICmpPred::Sge,
            "slt" => ICmpPred::Slt,
            "sle" => ICmpPred::Sle,
            _ => return None,
        })
    }
}

/// Conversion operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastOp {
    /// `zext`.
    ZExt,
    /// `sext`.
    SExt,
    /// `trunc`.
    Trunc,
    /// `bitcast`.
    BitCast,
    /// `ptrtoint`.
    PtrToInt,
    /// `inttoptr`.
    IntToPtr,
    /// `fptrunc`.
    FPTrunc,
    /// `fpext`.
    FPExt,
    /// `fptoui`.
    FPToUI,
    /// `fptosi`.
    FPToSI,
    /// `uitofp`.
    UIToFP,
    /// `sitofp`.
    SIToFP,
}

impl CastOp {
    /// The mnemonic as written in .ll text.
    pub fn name(self) -> &'static str {
        match self {
            CastOp::ZExt => "zext",
            CastOp::SExt => "sext",
            CastOp::Trunc => "trunc",
            CastOp::BitCast => "bitcast",
            CastOp::PtrToInt => "ptrtoint",
            CastOp::IntToPtr => "inttoptr",
            CastOp::FPTrunc => "fptrunc",
            CastOp::FPExt => "fpext",
            CastOp::FPToUI => "fptoui",
            CastOp::FPToSI => "fptosi",
            CastOp::UIToFP => "uitofp",
            CastOp::SIToFP => "sitofp",
        }
    }

    /// The cast for a .ll mnemonic.
    pub fn from_name(name: &str) -> Option<CastOp> {
        Some(match name {
            "zext" => CastOp::ZExt,
            "sext" => CastOp::SExt,
            "trunc" => CastOp::Trunc,
            "bitcast" => CastOp::BitCast,
            "ptrtoint" => CastOp::PtrToInt,
            "inttoptr" => CastOp::IntToPtr,
            "fptrunc" => CastOp::FPTrunc,
            "fpext" => CastOp::FPExt,
            "fptoui" => CastOp::FPToUI,
            "fptosi" => CastOp::FPToSI,
            "uitofp" => CastOp::UIToFP,
            "sitofp" => CastOp::SIToFP,
            _ => return None,
        })
    }
}

/// Tail-call marker of a call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TailKind {
    /// No marker.
    #[default]
    None,
    /// `tail`.
    Tail,
    /// `musttail`.
    MustTail,
    /// `notail`.
    NoTail,
}

/// Parameter and return attributes: the ones codegen reads as flags, and
/// every other one as written (`byval(%struct.S)`, `align 8`, `nocapture`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ParamAttrs {
    /// `signext`: the callee/caller sign-extends the value to 32 bits.
    pub signext: bool,
    /// `zeroext`: zero-extends it.
    pub zeroext: bool,
    /// `noundef`.
    pub noundef: bool,
    /// `nonnull`.
    pub nonnull: bool,
    /// `immarg` (intrinsic declarations).
    pub immarg: bool,
    /// Every other attribute as written, in order (the code generation gate
    /// refuses the ones that change the ABI and that codegen ignores).
    pub other: Vec<String>,
    /// `byval(T)`: the pointer names a copy of a `T` passed on the stack.
    pub byval: Option<Type>,
    /// `sret(T)`: the pointer names where the callee writes its `T` result.
    pub sret: Option<Type>,
    /// `elementtype(T)`: the type an indirect inline asm operand points to.
    pub elementtype: Option<Type>,
    /// `align N` of a `byval` or `sret` pointer (the copy's alignment).
    pub align: Option<u32>,
}

/// One argument of a call.
#[derive(Clone, Debug, PartialEq)]
pub struct CallArg {
    /// The value passed.
    pub value: Value,
    /// Its attributes.
    pub attrs: ParamAttrs,
}

/// One clause of a `landingpad`.
#[derive(Clone, Debug, PartialEq)]
pub enum LandingPadClause {
    /// `catch ptr @typeinfo` (`catch ptr null`: catch everything).
    Catch(Constant),
    /// `filter [N x ptr] [...]`: an exception specification, the array of
    /// type infos allowed through (empty: nothing may pass).
    Filter(Constant),
}

/// The intrinsics codegen knows, recognised by callee name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Intrinsic {
    /// `llvm.lifetime.start.*`.
    LifetimeStart,
    /// `llvm.lifetime.end.*`.
    LifetimeEnd,
    /// `llvm.smax.*`.
    SMax,
    /// `llvm.smin.*`.
    SMin,
    /// `llvm.umax.*`.
    UMax,
    /// `llvm.umin.*`.
    UMin,
    /// `llvm.abs.*`.
    Abs,
    /// `llvm.bswap.*`.
    Bswap,
    /// `llvm.ctpop.*`.
    Ctpop,
    /// `llvm.ctlz.*`.
    Ctlz,
    /// `llvm.cttz.*`.
    Cttz,
    /// `llvm.fshl.*`.
    Fshl,
    /// `llvm.fshr.*`.
    Fshr,
    /// `llvm.memset.*`.
    Memset,
    /// `llvm.memcpy.*`.
    Memcpy,
    /// `llvm.memmove.*`.
    Memmove,
    /// `llvm.{s,u}{add,sub,mul}.with.overflow.*`: `{T, i1}`.
    WithOverflow(OverflowOp),
    /// `llvm.{s,u}{add,sub}.sat.*`: saturating arithmetic.
    Saturating(OverflowOp),
    /// `llvm.bitreverse.*`.
    BitReverse,
    /// `llvm.assume`.
    Assume,
    /// `llvm.expect.*` and `llvm.expect.with.probability.*`.
    Expect,
    /// `llvm.load.relative.*`.
    LoadRelative,
    /// `llvm.stacksave`.
    StackSave,
    /// `llvm.stackrestore`.
    StackRestore,
    /// `llvm.prefetch.*`.
    Prefetch,
    /// `llvm.trap`.
    Trap,
    /// `llvm.debugtrap`.
    DebugTrap,
    /// `llvm.objectsize.*`.
    ObjectSize,
    /// `llvm.is.constant.*`: whether the operand is a constant.
    IsConstant,
    /// `llvm.returnaddress`: the return address of the function (depth 0)
    /// or of one of its callers.
    ReturnAddress,
    /// `llvm.frameaddress.*`: the address of the function's frame (depth
    /// 0, where its frame pointer points) or of a caller's.
    FrameAddress,
    /// `llvm.thread.pointer`: the thread pointer (`fs:0` on x86-64 Linux).
    ThreadPointer,
    /// `llvm.x86.*` intrinsics that are one instruction with no vector
    /// operand (`_mm_pause`, the fences, `__rdtsc`).
    X86(X86Intrinsic),
}

/// The x86 intrinsics of [`Intrinsic::X86`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum X86Intrinsic {
    /// `llvm.x86.sse2.pause`: `pause`.
    Pause,
    /// `llvm.x86.sse2.lfence`: `lfence`.
    Lfence,
    /// `llvm.x86.sse2.mfence`: `mfence`.
    Mfence,
    /// `llvm.x86.sse.sfence`: `sfence`.
    Sfence,
    /// `llvm.x86.rdtsc`: `rdtsc`, the counter as an `i64`.
    Rdtsc,
    /// `llvm.x86.sse.stmxcsr(ptr)`: `stmxcsr [p]` (`_mm_getcsr`).
    Stmxcsr,
    /// `llvm.x86.sse.ldmxcsr(ptr)`: `ldmxcsr [p]` (`_mm_setcsr`).
    Ldmxcsr,
    /// `llvm.x86.sse2.clflush(ptr)`: `clflush [p]` (`_mm_clflush`).
    Clflush,
}

/// The arithmetic of a `*.with.overflow` or `*.sat` intrinsic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OverflowOp {
    /// Signed (`s…`) rather than unsigned (`u…`).
    pub signed: bool,
    /// The operation.
    pub op: OverflowArith,
}

/// Add, subtract or multiply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OverflowArith {
    /// `add`.
    Add,
    /// `sub`.
    Sub,
    /// `mul`.
    Mul,
}

impl Intrinsic {
    /// Recognises an intrinsic by its full name (`llvm.smax.i32`).
    pub fn from_name(name: &str) -> Option<Intrinsic> {
        let rest = name.strip_prefix("llvm.")?;
        let base = rest.split('.').next().unwrap_or("");
        Some(match base {
            "lifetime" if rest.starts_with("lifetime.start") => Intrinsic::LifetimeStart,
            "lifetime" if rest.starts_with("lifetime.end") => Intrinsic::LifetimeEnd,
            "smax" => Intrinsic::SMax,
            "smin" => Intrinsic::SMin,
            "umax" => Intrinsic::UMax,
            "umin" => Intrinsic::UMin,
            "abs" => Intrinsic::Abs,
            "bswap" => Intrinsic::Bswap,
            "ctpop" => Intrinsic::Ctpop,
            "ctlz" => Intrinsic::Ctlz,
            "cttz" => Intrinsic::Cttz,
            "fshl" => Intrinsic::Fshl,
            "fshr" => Intrinsic::Fshr,
            "memset" => Intrinsic::Memset,
            "memcpy" => Intrinsic::Memcpy,
            "memmove" => Intrinsic::Memmove,
            "sadd" | "uadd" | "ssub" | "usub" | "smul" | "umul" => {
                let op = OverflowOp {
                    signed: base.starts_with('s'),
                    op: match &base[1..] {
                        "add" => OverflowArith::Add,
                        "sub" => OverflowArith::Sub,
                        _ => OverflowArith::Mul,
                    },
                };
                let kind = rest[base.len()..].strip_prefix('.').unwrap_or("");
                if kind.starts_with("with.overflow") {
                    Intrinsic::WithOverflow(op)
                } else if kind.starts_with("sat") && op.op != OverflowArith::Mul {
                    Intrinsic::Saturating(op)
                } else {
                    return None;
                }
            }
            "bitreverse" => Intrinsic::BitReverse,
            "assume" => Intrinsic::Assume,
            "expect" => Intrinsic::Expect,
            "load" if rest.starts_with("load.relative") => Intrinsic::LoadRelative,
            "stacksave" => Intrinsic::StackSave,
            "stackrestore" => Intrinsic::StackRestore,
            "prefetch" => Intrinsic::Prefetch,
            "trap" => Intrinsic::Trap,
            "debugtrap" => Intrinsic::DebugTrap,
            "objectsize" => Intrinsic::ObjectSize,
            "is" if rest.starts_with("is.constant.") => Intrinsic::IsConstant,
            "returnaddress" => Intrinsic::ReturnAddress,
            "frameaddress" => Intrinsic::FrameAddress,
            "thread" if rest == "thread.pointer" => Intrinsic::ThreadPointer,
            "x86" => Intrinsic::X86(match &rest[4..] {
                "sse2.pause" => X86Intrinsic::Pause,
                "sse2.lfence" => X86Intrinsic::Lfence,
                "sse2.mfence" => X86Intrinsic::Mfence,
                "sse.sfence" => X86Intrinsic::Sfence,
                "rdtsc" => X86Intrinsic::Rdtsc,
                "sse.stmxcsr" => X86Intrinsic::Stmxcsr,
                "sse.ldmxcsr" => X86Intrinsic::Ldmxcsr,
                "sse2.clflush" => X86Intrinsic::Clflush,
                _ => return None,
            }),
            _ => return None,
        })
    }
}
