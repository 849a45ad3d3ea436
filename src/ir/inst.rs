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
            _ => Vec::new(),
        }
    }

    /// Every value operand, in operand order (phi incoming values included;
    /// debug record operands are not: they are not uses by the code).
    pub fn operands(&self) -> Vec<&Value> {
        match &self.kind {
            InstKind::Binary { lhs, rhs, .. } | InstKind::ICmp { lhs, rhs, .. } => vec![lhs, rhs],
            InstKind::Select {
                cond,
                if_true,
                if_false,
            } => vec![cond, if_true, if_false],
            InstKind::Phi { incoming } => incoming.iter().map(|(v, _)| v).collect(),
            InstKind::Cast { value, .. } => vec![value],
            InstKind::Load { ptr, .. } => vec![ptr],
            InstKind::Store { value, ptr, .. } => vec![value, ptr],
            InstKind::Gep { base, indices, .. } => {
                std::iter::once(base).chain(indices.iter()).collect()
            }
            InstKind::Alloca { count, .. } => count.iter().collect(),
            InstKind::Call { callee, args, .. } => std::iter::once(callee)
                .chain(args.iter().map(|a| &a.value))
                .collect(),
            InstKind::CondBr { cond, .. } => vec![cond],
            InstKind::Switch { value, .. } => vec![value],
            InstKind::Ret { value } => value.iter().collect(),
            InstKind::Br { .. } | InstKind::Unreachable => Vec::new(),
            InstKind::Freeze { value } => vec![value],
        }
    }
}

impl Inst {
    /// Every value operand, mutable, in the order of [`Inst::operands`]
    /// (for replacing uses).
    pub fn operands_mut(&mut self) -> Vec<&mut Value> {
        match &mut self.kind {
            InstKind::Binary { lhs, rhs, .. } | InstKind::ICmp { lhs, rhs, .. } => vec![lhs, rhs],
            InstKind::Select {
                cond,
                if_true,
                if_false,
            } => vec![cond, if_true, if_false],
            InstKind::Phi { incoming } => incoming.iter_mut().map(|(v, _)| v).collect(),
            InstKind::Cast { value, .. } | InstKind::Freeze { value } => vec![value],
            InstKind::Load { ptr, .. } => vec![ptr],
            InstKind::Store { value, ptr, .. } => vec![value, ptr],
            InstKind::Gep { base, indices, .. } => {
                std::iter::once(base).chain(indices.iter_mut()).collect()
            }
            InstKind::Alloca { count, .. } => count.iter_mut().collect(),
            InstKind::Call { callee, args, .. } => std::iter::once(callee)
                .chain(args.iter_mut().map(|a| &mut a.value))
                .collect(),
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
    /// `ret void` or `ret ty v`.
    Ret {
        /// The returned value, if any.
        value: Option<Value>,
    },
    /// `unreachable`.
    Unreachable,
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
}

/// One argument of a call.
#[derive(Clone, Debug, PartialEq)]
pub struct CallArg {
    /// The value passed.
    pub value: Value,
    /// Its attributes.
    pub attrs: ParamAttrs,
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
            _ => return None,
        })
    }
}
