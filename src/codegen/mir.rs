//! Machine IR: x86-64 instructions over virtual and physical registers, with
//! debug values kept in place.
//!
//! In: instruction selection builds a [`Function`] over virtual registers
//! ([`VReg`], each of a [`RegClass`]: general-purpose or xmm), with
//! physical registers ([`PhysReg`]) only where the ABI or an instruction
//! demands one (argument and return copies, call arguments, `div`'s
//! rax/rdx, shift counts in cl). Out: the same type after register
//! allocation (no virtual registers left) and frame lowering (prologue and
//! epilogue present), ready for encoding.
//!
//! Promises and conventions:
//! - Two-address form as x86 has it: [`InstKind::Alu`] `dst op= src`; isel
//!   writes `Copy d, a; Add d, b`. The SSE2 instructions ([`InstKind::FpArith`]
//!   and the others named `Fp*`) work the same way on xmm registers.
//! - Every register operand has a class fixed by the instruction: a
//!   [`InstKind::Copy`] joins two registers of one class; values cross
//!   classes only through [`InstKind::MovToXmm`] and
//!   [`InstKind::MovFromXmm`] (and the conversions).
//! - Blocks are in layout order, entry first; the entry block has no
//!   predecessors (as in LLVM IR: the prologue goes there); a block ends with its
//!   terminators (`Jcc`* then at most one `Jmp`/`JmpIndirect`/`Ret`/`Ud2`),
//!   and falls through to the next block when the last one is a `Jcc` or it
//!   has none.
//! - Every [`Inst`] carries `loc`, an opaque source-location id (0: none);
//!   every pass keeps it.
//! - [`InstKind::DbgValue`] is DBG_VALUE and DBG_VALUE_LIST at once; its
//!   position is its meaning. Passes that make code decisions ignore it;
//!   the back end only rewrites its operands (ARCHITECTURE.md decision 4).
//! - `Display` prints an LLVM-MIR-like text for snapshots.

use std::fmt;

mod dbg_operands;

pub use dbg_operands::DbgOperands;

pub use crate::x86::{Gpr, GprSet, PhysReg, RegClass, RegSet, Xmm};

/// A virtual register: an index into [`Function::vregs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(pub u32);

/// A register operand: virtual before allocation, physical after (or where
/// precoloured by the ABI).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reg {
    /// A virtual register.
    Virt(VReg),
    /// A physical register.
    Phys(PhysReg),
}

impl From<Gpr> for Reg {
    fn from(g: Gpr) -> Reg {
        Reg::Phys(PhysReg::Gpr(g))
    }
}

impl From<Xmm> for Reg {
    fn from(x: Xmm) -> Reg {
        Reg::Phys(PhysReg::Xmm(x))
    }
}

impl From<PhysReg> for Reg {
    fn from(p: PhysReg) -> Reg {
        Reg::Phys(p)
    }
}

/// Operand width of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Width {
    /// 8 bits.
    W8,
    /// 16 bits.
    W16,
    /// 32 bits (writes zero the upper 32 bits of the register).
    W32,
    /// 64 bits.
    W64,
}

impl Width {
    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            Width::W8 => 8,
            Width::W16 => 16,
            Width::W32 => 32,
            Width::W64 => 64,
        }
    }

    /// Width in bytes.
    pub fn bytes(self) -> u32 {
        self.bits() / 8
    }
}

/// What is known about a virtual register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VRegInfo {
    /// The width of the value it holds (spills always save 8 bytes; debug
    /// locations use this width). An xmm register holds a float (W32) or a
    /// double (W64).
    pub width: Width,
    /// The registers it may be given.
    pub class: RegClass,
    /// An xmm register holding a whole vector (up to 16 bytes): spilled
    /// with all 128 bits to a 16-byte slot.
    pub vector: bool,
}

/// The precision of a scalar SSE operation (the `ss` or `sd` forms).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FpSize {
    /// float: `…ss`.
    F32,
    /// double: `…sd`.
    F64,
}

impl FpSize {
    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            FpSize::F32 => 32,
            FpSize::F64 => 64,
        }
    }

    /// The width of a value of this precision.
    pub fn width(self) -> Width {
        match self {
            FpSize::F32 => Width::W32,
            FpSize::F64 => Width::W64,
        }
    }
}

/// Scalar SSE arithmetic, `dst op= src` on the low element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FpOp {
    /// addss/addsd.
    Add,
    /// subss/subsd.
    Sub,
    /// mulss/mulsd.
    Mul,
    /// divss/divsd.
    Div,
    /// minss/minsd: `dst = dst < src ? dst : src` (src when either is NaN
    /// or both are zeros).
    Min,
    /// maxss/maxsd: `dst = dst > src ? dst : src` (src when either is NaN
    /// or both are zeros).
    Max,
}

/// Bitwise operations on whole xmm registers (andps, andnps, orps, xorps):
/// fabs, fneg and copysign masks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FpLogicOp {
    /// andps: `dst &= src`.
    And,
    /// andnps: `dst = !dst & src`.
    AndNot,
    /// orps: `dst |= src`.
    Or,
    /// xorps: `dst ^= src`.
    Xor,
}

/// The predicate of cmpss/cmpsd (its immediate, 0–7): the destination's
/// low element becomes all ones where it holds, else zero. The ordered
/// forms are false and the unordered forms true when an operand is NaN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FpCmpPredicate {
    /// Ordered and equal.
    Eq = 0,
    /// Ordered and less than.
    Lt = 1,
    /// Ordered and less or equal.
    Le = 2,
    /// Either operand NaN.
    Unord = 3,
    /// Unordered or not equal.
    Neq = 4,
    /// Unordered or not less than.
    Nlt = 5,
    /// Unordered or not less or equal.
    Nle = 6,
    /// Neither operand NaN.
    Ord = 7,
}

/// Packed SSE2 operations over whole xmm registers, `dst op= src`
/// (integer lanes of 8, 16, 32 or 64 bits; float and double lanes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PackedOp {
    /// paddb.
    AddB,
    /// paddw.
    AddW,
    /// paddd.
    AddD,
    /// paddq.
    AddQ,
    /// psubb.
    SubB,
    /// psubw.
    SubW,
    /// psubd.
    SubD,
    /// psubq.
    SubQ,
    /// pmullw: the low 16 bits of each word product.
    MulLoW,
    /// pmuludq: the 64-bit products of the even unsigned dwords.
    MulUDq,
    /// pand.
    And,
    /// pandn: `dst = !dst & src`.
    AndNot,
    /// por.
    Or,
    /// pxor.
    Xor,
    /// pcmpeqb.
    CmpEqB,
    /// pcmpeqw.
    CmpEqW,
    /// pcmpeqd.
    CmpEqD,
    /// pcmpgtb (signed).
    CmpGtB,
    /// pcmpgtw (signed).
    CmpGtW,
    /// pcmpgtd (signed).
    CmpGtD,
    /// punpcklbw.
    UnpackLoBW,
    /// punpcklwd.
    UnpackLoWD,
    /// punpckldq.
    UnpackLoDQ,
    /// punpcklqdq.
    UnpackLoQDQ,
    /// packsswb (signed saturation of words to bytes).
    PackSsWB,
    /// packssdw (signed saturation of dwords to words).
    PackSsDW,
    /// packuswb (unsigned saturation of signed words to bytes).
    PackUsWB,
    /// punpckhbw.
    UnpackHiBW,
    /// punpckhwd.
    UnpackHiWD,
    /// punpckhdq.
    UnpackHiDQ,
    /// punpckhqdq.
    UnpackHiQDQ,
    /// pminub.
    MinUB,
    /// pmaxub.
    MaxUB,
    /// pminsw.
    MinSW,
    /// pmaxsw.
    MaxSW,
    /// paddusb (unsigned saturation).
    AddUsB,
    /// paddusw (unsigned saturation).
    AddUsW,
    /// psubusb (unsigned saturation).
    SubUsB,
    /// psubusw (unsigned saturation).
    SubUsW,
    /// paddsb (signed saturation).
    AddSsB,
    /// paddsw (signed saturation).
    AddSsW,
    /// psubsb (signed saturation).
    SubSsB,
    /// psubsw (signed saturation).
    SubSsW,
    /// cmpps with a predicate: each float lane becomes an all-ones or
    /// all-zeros mask.
    CmpPs(FpCmpPredicate),
    /// cmppd with a predicate: each double lane becomes a mask.
    CmpPd(FpCmpPredicate),
    /// shufps with its immediate: dwords 0-1 from `dst`, 2-3 from `src`.
    ShufPs(u8),
    /// cvtdq2ps: `dst` becomes `src`'s signed dwords as floats.
    CvtDq2Ps,
    /// cvttps2dq: `dst` becomes `src`'s floats truncated to signed dwords.
    CvtTPs2Dq,
    /// cvtdq2pd: `dst` becomes `src`'s two low signed dwords as doubles.
    CvtDq2Pd,
    /// cvttpd2dq: `dst`'s low two dwords become `src`'s doubles truncated
    /// (the high two zero).
    CvtTPd2Dq,
    /// cvtps2dq: `src`'s floats to signed dwords in the current rounding
    /// mode.
    CvtPs2Dq,
    /// cvtpd2dq: `src`'s doubles to the low two dwords in the current
    /// rounding mode (the high two zero).
    CvtPd2Dq,
    /// psadbw: per 8-byte half, the sum of absolute byte differences.
    SadBW,
    /// pmaddwd: signed word products added in pairs into dwords.
    MaddWD,
    /// pavgb: the unsigned byte averages, rounded up.
    AvgB,
    /// pavgw: the unsigned word averages, rounded up.
    AvgW,
    /// pmulhw: the high 16 bits of each signed word product.
    MulHiW,
    /// pmulhuw: the high 16 bits of each unsigned word product.
    MulHiUW,
    /// minps (the second operand where either is NaN, or both zero).
    MinPs,
    /// maxps.
    MaxPs,
    /// minpd.
    MinPd,
    /// maxpd.
    MaxPd,
    /// minss: the low float only (the other lanes of `dst` stay).
    MinSs,
    /// maxss.
    MaxSs,
    /// minsd: the low double only.
    MinSd,
    /// maxsd.
    MaxSd,
    /// rsqrtps: approximate reciprocal square roots.
    RsqrtPs,
    /// rcpps: approximate reciprocals.
    RcpPs,
    /// sqrtps: square roots of four floats.
    SqrtPs,
    /// sqrtpd: square roots of two doubles.
    SqrtPd,
    /// rsqrtss: the low float's approximate reciprocal square root (the
    /// other lanes of `dst` stay).
    RsqrtSs,
    /// rcpss: the low float's approximate reciprocal.
    RcpSs,
    /// psllw by the count in `src`'s low 64 bits.
    ShlW,
    /// pslld by an xmm count.
    ShlD,
    /// psllq by an xmm count.
    ShlQ,
    /// psrlw by an xmm count.
    ShrW,
    /// psrld by an xmm count.
    ShrD,
    /// psrlq by an xmm count.
    ShrQ,
    /// psraw by an xmm count.
    SarW,
    /// psrad by an xmm count.
    SarD,
    /// cvtps2pd: `dst` becomes `src`'s two low floats as doubles.
    CvtPs2Pd,
    /// cvtpd2ps: `dst`'s low two floats become `src`'s doubles rounded
    /// (the high two zero).
    CvtPd2Ps,
    /// addps.
    AddPs,
    /// subps.
    SubPs,
    /// mulps.
    MulPs,
    /// divps.
    DivPs,
    /// addpd.
    AddPd,
    /// subpd.
    SubPd,
    /// mulpd.
    MulPd,
    /// divpd.
    DivPd,
}

/// Packed shifts by an immediate count, `dst op= imm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PackedShift {
    /// psllw.
    LeftW,
    /// pslld.
    LeftD,
    /// psllq.
    LeftQ,
    /// psrlw.
    RightW,
    /// psrld.
    RightD,
    /// psrlq.
    RightQ,
    /// psraw.
    ArithW,
    /// psrad.
    ArithD,
    /// pslldq: the whole register left by `imm` bytes.
    LeftBytes,
    /// psrldq: the whole register right by `imm` bytes.
    RightBytes,
}

/// Shuffles of one source by an immediate, `dst = shuffle(src, imm)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PackedShuffle {
    /// pshufd: dwords.
    Dwords,
    /// pshuflw: the low four words (the high quadword is copied).
    LowWords,
    /// pshufhw: the high four words (the low quadword is copied).
    HighWords,
}

/// A stack slot: an index into [`Function::stack_slots`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StackSlotId(pub u32);

/// Why a stack slot exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StackSlotKind {
    /// An IR `alloca`.
    Alloca,
    /// A register-allocator spill slot.
    Spill,
}

/// A piece of the frame; frame lowering gives it an rbp-relative place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackSlot {
    /// Size in bytes.
    pub size: u32,
    /// Alignment in bytes (a power of two, at most 16).
    pub align: u32,
    /// Why it exists.
    pub kind: StackSlotKind,
}

/// A block: an index into [`Function::blocks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// A jump table: an index into [`Function::jump_tables`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JumpTableId(pub u32);

/// What a memory operand's address is relative to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AddressBase {
    /// A register.
    Reg(Reg),
    /// The start of a stack slot (frame lowering makes it rbp-relative).
    Slot(StackSlotId),
    /// The incoming stack-argument area: displacement 0 is the first
    /// stack-passed argument (the address CFA + 0).
    IncomingArgs,
    /// The outgoing stack-argument area of calls made by this function:
    /// displacement 0 is the first stack-passed argument (`[rsp]` at the
    /// call). [`Function::outgoing_args_size`] must cover it.
    OutgoingArgs,
    /// A symbol reached RIP-relative (R_X86_64_PC32): a function or a
    /// dso_local/internal data object of this module.
    Symbol(String),
    /// The GOT entry of an external symbol (R_X86_64_REX_GOTPCRELX): a
    /// 64-bit load from it yields the symbol's address. Displacement must be
    /// 0 and no index.
    Got(String),
    /// The start of a jump table in the function's read-only data.
    JumpTable(JumpTableId),
    /// A constant of the function's constant pool (in its read-only data,
    /// reached RIP-relative).
    Constant(ConstantId),
}

/// A constant-pool entry: an index into [`Function::constants`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConstantId(pub u32);

/// The bytes of a constant-pool entry (a float's or double's bits), aligned
/// to their size.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PoolConstant {
    /// The bytes, little-endian (4 or 8 of them).
    pub bytes: Vec<u8>,
}

/// A memory operand: `base + index * scale + disp`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Address {
    /// The base.
    pub base: AddressBase,
    /// Optional index register and scale (1, 2, 4 or 8).
    pub index: Option<(Reg, u8)>,
    /// Displacement.
    pub disp: i32,
}

impl Address {
    /// `[reg + disp]`.
    pub fn reg(reg: Reg, disp: i32) -> Address {
        Address {
            base: AddressBase::Reg(reg),
            index: None,
            disp,
        }
    }

    /// `[slot + disp]`.
    pub fn slot(slot: StackSlotId, disp: i32) -> Address {
        Address {
            base: AddressBase::Slot(slot),
            index: None,
            disp,
        }
    }
}

/// A register or memory operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Rm {
    /// A register.
    Reg(Reg),
    /// Memory.
    Mem(Address),
}

/// A register, memory or immediate operand. Immediates are 32 bits,
/// sign-extended for 64-bit operations.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Rmi {
    /// A register.
    Reg(Reg),
    /// Memory.
    Mem(Address),
    /// An immediate.
    Imm(i32),
}

/// A register or immediate operand (stores, `test`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ri {
    /// A register.
    Reg(Reg),
    /// An immediate (sign-extended for 64-bit operations).
    Imm(i32),
}

/// Two-operand ALU operations (`dst op= src`), flags set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AluOp {
    /// add.
    Add,
    /// sub.
    Sub,
    /// and.
    And,
    /// or.
    Or,
    /// xor.
    Xor,
    /// adc: add with the carry flag of the instruction before (the low
    /// half of a wide addition).
    Adc,
    /// sbb: subtract with the borrow (carry flag) of the instruction before.
    Sbb,
}

/// Shift and rotate operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShiftOp {
    /// shl.
    Shl,
    /// shr (logical).
    Shr,
    /// sar (arithmetic).
    Sar,
    /// rol.
    Rol,
    /// ror.
    Ror,
}

/// The shift count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShiftAmount {
    /// In cl: isel copies the count into `Reg::Phys(Gpr::Rcx)` first.
    Cl,
    /// An immediate count.
    Imm(u8),
}

/// One-operand in-place operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// neg.
    Neg,
    /// not.
    Not,
    /// bswap (32 or 64 bits only).
    Bswap,
}

/// An x86 condition code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cond {
    /// Overflow.
    O,
    /// No overflow.
    No,
    /// Below (unsigned <).
    B,
    /// Above or equal (unsigned >=).
    Ae,
    /// Equal.
    E,
    /// Not equal.
    Ne,
    /// Below or equal (unsigned <=).
    Be,
    /// Above (unsigned >).
    A,
    /// Sign.
    S,
    /// No sign.
    Ns,
    /// Parity.
    P,
    /// No parity.
    Np,
    /// Less (signed <).
    L,
    /// Greater or equal (signed >=).
    Ge,
    /// Less or equal (signed <=).
    Le,
    /// Greater (signed >).
    G,
}

impl Cond {
    /// The condition that holds exactly when this one does not.
    pub fn invert(self) -> Cond {
        match self {
            Cond::O => Cond::No,
            Cond::No => Cond::O,
            Cond::B => Cond::Ae,
            Cond::Ae => Cond::B,
            Cond::E => Cond::Ne,
            Cond::Ne => Cond::E,
            Cond::Be => Cond::A,
            Cond::A => Cond::Be,
            Cond::S => Cond::Ns,
            Cond::Ns => Cond::S,
            Cond::P => Cond::Np,
            Cond::Np => Cond::P,
            Cond::L => Cond::Ge,
            Cond::Ge => Cond::L,
            Cond::Le => Cond::G,
            Cond::G => Cond::Le,
        }
    }

    /// The assembler suffix (`e`, `ne`, `l`, …).
    pub fn name(self) -> &'static str {
        match self {
            Cond::O => "o",
            Cond::No => "no",
            Cond::B => "b",
            Cond::Ae => "ae",
            Cond::E => "e",
            Cond::Ne => "ne",
            Cond::Be => "be",
            Cond::A => "a",
            Cond::S => "s",
            Cond::Ns => "ns",
            Cond::P => "p",
            Cond::Np => "np",
            Cond::L => "l",
            Cond::Ge => "ge",
            Cond::Le => "le",
            Cond::G => "g",
        }
    }
}

/// What a call calls.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CallTarget {
    /// A named function, called through R_X86_64_PLT32.
    Symbol(String),
    /// An address in a register.
    Reg(Reg),
}

/// One operand of a debug value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DbgOperand {
    /// The value is in this register.
    Reg(Reg),
    /// The value is this constant.
    Imm(i64),
    /// The operand is the address of this stack slot (an alloca: with
    /// `indirect` the variable lives in the slot).
    StackSlot(StackSlotId),
    /// The value is stored in this stack slot (a spilled register; the
    /// register allocator produces it; read [`VRegInfo::width`] bytes).
    SpillSlot(StackSlotId, Width),
    /// The operand is the address this many bytes into the incoming
    /// stack-argument area (CFA + n: a `byval` parameter's copy; with
    /// `indirect` the variable lives there).
    IncomingArg(i32),
    /// The value is stored this many bytes into the incoming
    /// stack-argument area (a parameter the caller passed on the stack,
    /// which no code here writes; read the width's bytes): a memory
    /// location for as long as the variable keeps that value.
    IncomingValue(i32, Width),
    /// No location: the value is unavailable here.
    NoReg,
}

/// A DBG_VALUE / DBG_VALUE_LIST: from this position on, `variable` is
/// described by `expr` over `operands`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DbgValue {
    /// Opaque variable id (isel's; the back end never interprets it).
    pub variable: u32,
    /// The operands `DW_OP_LLVM_arg 0..n` of the expression name.
    pub operands: DbgOperands,
    /// Opaque expression id (isel's).
    pub expr: u32,
    /// The variable lives in memory at the (single) operand's address.
    pub indirect: bool,
    /// LiveDebugValues followed the previous debug value's value to another
    /// home (a copy, a spill slot, a restore): the same value, not a new
    /// assignment (so a parameter's entry value still describes it).
    pub moved: bool,
}

impl DbgValue {
    /// Whether `other` says the same of the same variable (whether either
    /// was moved there does not matter: the location is what a successor
    /// keeps).
    pub fn same_location(&self, other: &DbgValue) -> bool {
        self.variable == other.variable
            && self.operands == other.operands
            && self.expr == other.expr
            && self.indirect == other.indirect
    }
}

/// The operation of an instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum InstKind {
    /// Pseudo: `dst = src` between registers of one class: all 64 bits of a
    /// general-purpose register, all 128 of an xmm register (register
    /// allocation may remove it).
    Copy {
        /// Destination.
        dst: Reg,
        /// Source.
        src: Reg,
    },
    /// `mov dst, imm`. W32 zero-extends; W64 picks the shortest encoding.
    MovImm {
        /// Destination.
        dst: Reg,
        /// The constant (truncated to `width`).
        imm: i64,
        /// Width.
        width: Width,
    },
    /// `mov dst, [addr]` (W8/W16 leave the upper bits unchanged; use
    /// [`InstKind::Extend`] to widen).
    Load {
        /// Destination.
        dst: Reg,
        /// Source address.
        addr: Address,
        /// Width.
        width: Width,
    },
    /// `mov [addr], src`.
    Store {
        /// Value stored.
        src: Ri,
        /// Destination address.
        addr: Address,
        /// Width.
        width: Width,
    },
    /// `movzx`/`movsx`/`movsxd` (or `mov r32` for 32 → 64 zero extension).
    Extend {
        /// Destination (written at width `to`).
        dst: Reg,
        /// Source (read at width `from`).
        src: Rm,
        /// Source width.
        from: Width,
        /// Destination width (wider than `from`).
        to: Width,
        /// Sign extension (`true`) or zero extension.
        signed: bool,
    },
    /// `lea dst, [addr]` (64-bit).
    Lea {
        /// Destination.
        dst: Reg,
        /// The address computed.
        addr: Address,
    },
    /// `lea dst32, [addr]`: the low 32 bits of the address, zero-extended
    /// (a 32-bit `add` that keeps its operands and the flags; made after
    /// allocation by [`crate::codegen::peephole`]).
    Lea32 {
        /// Destination.
        dst: Reg,
        /// The address computed.
        addr: Address,
    },
    /// `dst op= src`.
    Alu {
        /// Operation.
        op: AluOp,
        /// Width.
        width: Width,
        /// Destination and first source.
        dst: Reg,
        /// Second source.
        src: Rmi,
    },
    /// `op [addr], src`: a read-modify-write of memory (flags written).
    AluMem {
        /// Operation.
        op: AluOp,
        /// Width.
        width: Width,
        /// The memory read and written.
        addr: Address,
        /// Second source.
        src: Ri,
    },
    /// `imul dst, src` (two-operand, W16/W32/W64).
    Imul {
        /// Width.
        width: Width,
        /// Destination and first source.
        dst: Reg,
        /// Second source.
        src: Rm,
    },
    /// `imul dst, src, imm` (three-operand, W16/W32/W64).
    ImulImm {
        /// Width.
        width: Width,
        /// Destination.
        dst: Reg,
        /// Source.
        src: Rm,
        /// Constant factor.
        imm: i32,
    },
    /// Shift or rotate `dst` in place.
    Shift {
        /// Operation.
        op: ShiftOp,
        /// Width.
        width: Width,
        /// Destination and source.
        dst: Reg,
        /// Count (cl or immediate).
        amount: ShiftAmount,
    },
    /// `neg`, `not` or `bswap` of `dst` in place.
    Unary {
        /// Operation.
        op: UnaryOp,
        /// Width.
        width: Width,
        /// Destination and source.
        dst: Reg,
    },
    /// `cmp lhs, rhs` (flags only).
    Cmp {
        /// Width.
        width: Width,
        /// Left operand.
        lhs: Rm,
        /// Right operand (not memory when `lhs` is memory).
        rhs: Rmi,
    },
    /// `test lhs, rhs` (flags only).
    Test {
        /// Width.
        width: Width,
        /// Left operand.
        lhs: Rm,
        /// Right operand.
        rhs: Ri,
    },
    /// `bt base, bit` (flags only): CF becomes bit `bit mod width` of
    /// `base` (W16/W32/W64; the register form, which masks the bit number,
    /// never the memory form, which does not).
    Bt {
        /// Width.
        width: Width,
        /// The register whose bit is tested.
        base: Reg,
        /// The register holding the bit number.
        bit: Reg,
    },
    /// `setcc dst` (writes the low 8 bits only).
    Setcc {
        /// Condition.
        cond: Cond,
        /// Destination.
        dst: Reg,
    },
    /// `cmovcc dst, src` (W16/W32/W64).
    Cmov {
        /// Condition.
        cond: Cond,
        /// Width.
        width: Width,
        /// Destination (kept when the condition fails).
        dst: Reg,
        /// Source.
        src: Rm,
    },
    /// `cwd`/`cdq`/`cqo`: sign-extend rax into rdx (W16/W32/W64).
    SignExtendAx {
        /// Width.
        width: Width,
    },
    /// `div`/`idiv divisor`: rdx:rax / divisor → quotient in rax, remainder
    /// in rdx (uses and defines both; W32/W64; W8/W16 not supported).
    Div {
        /// Signed (`idiv`) or unsigned (`div`).
        signed: bool,
        /// Width.
        width: Width,
        /// Divisor.
        divisor: Rm,
    },
    /// A call. Uses `args`, defines `rets`, clobbers `clobbers` (normally
    /// [`crate::x86::abi::CALLER_SAVED`]). Stack arguments are stored into
    /// [`AddressBase::OutgoingArgs`] before it.
    Call {
        /// Callee.
        target: CallTarget,
        /// Physical registers holding arguments (read by the call; `al`'s
        /// count of vector registers for a variadic callee included).
        args: Vec<PhysReg>,
        /// Physical registers holding results (written by the call).
        rets: Vec<PhysReg>,
        /// Registers the call destroys.
        clobbers: RegSet,
        /// The landing pad an exception thrown by the callee lands in (an
        /// `invoke`): a successor of the block, which the call ends, reached
        /// with the registers as they are right after the call (exception
        /// pointer in rax, selector in rdx).
        unwind: Option<BlockId>,
    },
    /// Conditional jump to `target`; falls through otherwise.
    Jcc {
        /// Condition.
        cond: Cond,
        /// Target block.
        target: BlockId,
    },
    /// Unconditional jump.
    Jmp {
        /// Target block.
        target: BlockId,
    },
    /// `jmp target` through a register holding an address taken from
    /// `table` (whose blocks are the successors).
    JmpIndirect {
        /// Register holding the destination address.
        target: Reg,
        /// The jump table the address came from.
        table: JumpTableId,
    },
    /// Return; `uses` are the physical registers holding return values.
    Ret {
        /// Registers read by the return (rax for an integer result, xmm0
        /// for a floating-point one).
        uses: Vec<PhysReg>,
    },
    /// A tail call: `jmp target` after the epilogue (frame lowering puts
    /// it before this instruction, as before a return), the arguments
    /// already in their ABI places. Ends the block and the function's path.
    TailJump {
        /// Callee (a register target must be one the epilogue does not
        /// restore: r11).
        target: CallTarget,
        /// Physical registers holding arguments (read by the callee).
        args: Vec<PhysReg>,
    },
    /// `ud2` (unreachable).
    Ud2,
    /// `push reg` (frame lowering only).
    Push {
        /// Register saved.
        reg: Gpr,
    },
    /// `pop reg` (frame lowering only).
    Pop {
        /// Register restored.
        reg: Gpr,
    },
    /// `movss`/`movsd dst, [addr]`: loads a float or double into the low
    /// element of an xmm register (the rest becomes zero).
    FpLoad {
        /// Destination (xmm).
        dst: Reg,
        /// Source address.
        addr: Address,
        /// Precision.
        size: FpSize,
    },
    /// `movss`/`movsd [addr], src`.
    FpStore {
        /// Value stored (xmm).
        src: Reg,
        /// Destination address.
        addr: Address,
        /// Precision.
        size: FpSize,
    },
    /// Scalar SSE arithmetic `dst op= src`.
    FpArith {
        /// Operation.
        op: FpOp,
        /// Precision.
        size: FpSize,
        /// Destination and first source (xmm).
        dst: Reg,
        /// Second source (xmm or memory).
        src: Rm,
    },
    /// `sqrtss`/`sqrtsd dst, src`.
    FpSqrt {
        /// Precision.
        size: FpSize,
        /// Destination (xmm).
        dst: Reg,
        /// Source (xmm or memory).
        src: Rm,
    },
    /// andps/andnps/orps/xorps `dst, src` over whole registers.
    FpLogic {
        /// Operation.
        op: FpLogicOp,
        /// Destination and first source (xmm).
        dst: Reg,
        /// Second source (xmm).
        src: Reg,
    },
    /// `ucomiss`/`ucomisd lhs, rhs` (quiet), or `comiss`/`comisd`
    /// (`signaling`: raises invalid on a quiet NaN too). Flags: unordered
    /// ZF=PF=CF=1; less CF=1; equal ZF=1; greater all zero.
    FpCmp {
        /// Precision.
        size: FpSize,
        /// Left operand (xmm).
        lhs: Reg,
        /// Right operand (xmm or memory).
        rhs: Rm,
        /// comis instead of ucomis.
        signaling: bool,
    },
    /// `cmpss`/`cmpsd dst, src, predicate`: `dst`'s low element becomes an
    /// all-ones or all-zeros mask (NaN-correct selects).
    FpCmpMask {
        /// Precision.
        size: FpSize,
        /// The predicate.
        predicate: FpCmpPredicate,
        /// Destination and left operand (xmm).
        dst: Reg,
        /// Right operand (xmm or memory).
        src: Rm,
    },
    /// `cvtsi2ss`/`cvtsi2sd dst, src`: a signed integer of `width` (W32 or
    /// W64) to floating point.
    IntToFp {
        /// Precision of the result.
        size: FpSize,
        /// Width of the integer.
        width: Width,
        /// Destination (xmm).
        dst: Reg,
        /// Source (general-purpose or memory).
        src: Rm,
    },
    /// `cvttss2si`/`cvttsd2si dst, src`: floating point to a signed integer
    /// of `width` (W32 or W64), rounding toward zero (out of range or NaN:
    /// the "integer indefinite" 0x80…0); `cvtss2si`/`cvtsd2si` when
    /// `rounded` (the current rounding mode, as `_mm_cvtss_si32` asks).
    FpToInt {
        /// Precision of the source.
        size: FpSize,
        /// Width of the integer.
        width: Width,
        /// In the current rounding mode rather than toward zero.
        rounded: bool,
        /// Destination (general-purpose).
        dst: Reg,
        /// Source (xmm or memory).
        src: Rm,
    },
    /// `cvtss2sd` (from F32) or `cvtsd2ss` (from F64).
    FpConvert {
        /// Precision of the source; the result has the other.
        from: FpSize,
        /// Destination (xmm).
        dst: Reg,
        /// Source (xmm or memory).
        src: Rm,
    },
    /// `movd`/`movq xmm, r/m`: the bits of an integer (W32 or W64) into the
    /// low element of an xmm register (the rest becomes zero).
    MovToXmm {
        /// Width moved.
        width: Width,
        /// Destination (xmm).
        dst: Reg,
        /// Source (general-purpose or memory).
        src: Rm,
    },
    /// `movd`/`movq r, xmm`: the low 32 or 64 bits of an xmm register.
    MovFromXmm {
        /// Width moved.
        width: Width,
        /// Destination (general-purpose).
        dst: Reg,
        /// Source (xmm).
        src: Reg,
    },
    /// `movd`/`movq`/`movdqu`: the low `bytes` (4, 8 or 16) of an xmm
    /// register from memory of any alignment (the rest becomes zero).
    VecLoad {
        /// Destination (xmm).
        dst: Reg,
        /// Source address.
        addr: Address,
        /// Bytes loaded.
        bytes: u8,
    },
    /// `movd`/`movq`/`movdqu`: the low `bytes` (4, 8 or 16) of an xmm
    /// register to memory of any alignment.
    VecStore {
        /// Value stored (xmm).
        src: Reg,
        /// Destination address.
        addr: Address,
        /// Bytes stored.
        bytes: u8,
    },
    /// A packed SSE2 operation `dst op= src` over whole registers.
    Packed {
        /// Operation.
        op: PackedOp,
        /// Destination and first source (xmm).
        dst: Reg,
        /// Second source (xmm).
        src: Reg,
    },
    /// A packed shift by an immediate, `dst op= imm`.
    PackedShiftImm {
        /// Operation.
        op: PackedShift,
        /// Destination and source (xmm).
        dst: Reg,
        /// Count (bits, or bytes for the whole-register shifts).
        imm: u8,
    },
    /// `pshufd`/`pshuflw`/`pshufhw dst, src, imm`.
    PackedShuffleImm {
        /// Which shuffle.
        op: PackedShuffle,
        /// Destination (xmm).
        dst: Reg,
        /// Source (xmm).
        src: Reg,
        /// The lane selector.
        imm: u8,
    },
    /// `pmovmskb dst, src`: the top bit of each byte of `src` into the low
    /// 16 bits of `dst` (the rest zero).
    MoveMask {
        /// Destination (general-purpose, 32 bits).
        dst: Reg,
        /// Source (xmm).
        src: Reg,
    },
    /// `pxor dst, dst`: +0.0 (all bits zero) without reading `dst`.
    XmmZero {
        /// Destination (xmm).
        dst: Reg,
    },
    /// `bsf`/`bsr dst, src`: the index of the lowest (`reverse: false`) or
    /// highest set bit of `src`; ZF is set and `dst` is not meaningful when
    /// `src` is zero (W16/W32/W64).
    BitScan {
        /// `bsr` (highest set bit) rather than `bsf`.
        reverse: bool,
        /// Width.
        width: Width,
        /// Destination.
        dst: Reg,
        /// Source.
        src: Rm,
    },
    /// `mul src`: unsigned rdx:rax = rax * src (W16/W32/W64); CF and OF
    /// are set when the high half is not zero.
    MulWide {
        /// Width.
        width: Width,
        /// The second factor.
        src: Rm,
    },
    /// `ud2` (`breakpoint: false`, `llvm.trap`) or `int3` (`llvm.debugtrap`)
    /// in the middle of a block: unlike [`InstKind::Ud2`] it does not end it.
    Trap {
        /// `int3` rather than `ud2`.
        breakpoint: bool,
    },
    /// An inline asm statement: machine instructions chosen from its
    /// template, over the registers of its operands.
    InlineAsm(Box<InlineAsm>),
    /// A step of a thread-local variable's address, in the exact sequence
    /// the linker relaxes (see [`TlsAccess`]).
    ThreadLocal {
        /// Which sequence.
        access: TlsAccess,
        /// The thread-local symbol.
        symbol: String,
        /// The address computed (`None` for the `__tls_get_addr` calls,
        /// whose result is in rax).
        dst: Option<Reg>,
        /// The TLS block address a local-dynamic offset is added to.
        base: Option<Reg>,
    },
    /// An x87 sequence over memory operands (`x86_fp80` arithmetic and
    /// conversions). The x87 register stack holds `stack_in` values before
    /// it and `stack_out` after it: 0 and 0, except `stack_in` 1 right
    /// after a call returning an `x86_fp80` in st(0) and `stack_out` 1
    /// right before the `ret` returning one there. Writes EFLAGS (a
    /// [`X87Step::Compare`] sets them as `ucomisd` does).
    X87 {
        /// The x87 instructions, in order.
        steps: Vec<X87Step>,
        /// Values on the x87 stack before the sequence.
        stack_in: u8,
        /// Values on the x87 stack after it.
        stack_out: u8,
    },
    /// DBG_VALUE / DBG_VALUE_LIST.
    DbgValue(DbgValue),
}

/// A floating-point format the x87 loads and stores in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum X87Format {
    /// `float` (m32fp).
    F32,
    /// `double` (m64fp).
    F64,
    /// `x86_fp80` (m80fp: ten bytes).
    F80,
}

impl X87Format {
    /// The format's size in bits.
    pub fn bits(self) -> u32 {
        match self {
            X87Format::F32 => 32,
            X87Format::F64 => 64,
            X87Format::F80 => 80,
        }
    }
}

/// One x87 instruction of an [`InstKind::X87`] sequence.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum X87Step {
    /// `fld` of a value in memory: pushes it.
    Load(Address, X87Format),
    /// `fild` of a signed 16-, 32- or 64-bit integer in memory: pushes it.
    LoadInt(Address, Width),
    /// `fstp` to memory (rounded to the format): pops.
    Store(Address, X87Format),
    /// `fistp` of a signed 16-, 32- or 64-bit integer rounded toward zero:
    /// the control word is saved at `control` (`fnstcw`), a copy at
    /// `control + 2` gets rounding toward zero (`or word [control + 2],
    /// 0xc00`) and is loaded (`fldcw`) for the `fistp`, then the saved one
    /// is restored. Pops.
    StoreIntTruncated {
        /// Where the integer goes.
        addr: Address,
        /// Its width (W16, W32 or W64).
        width: Width,
        /// Four bytes of scratch memory for the control words.
        control: Address,
    },
    /// `f<op>p st(1), st(0)`: st(1) = st(1) op st(0), then pops (add,
    /// sub, mul or div).
    Arith(FpOp),
    /// `fsqrt`: st(0) = sqrt(st(0)).
    Sqrt,
    /// `fucomip st(0), st(1)` then `fstp st(0)`: EFLAGS as `ucomisd
    /// st(0), st(1)` would set them (unordered: ZF, PF and CF all 1); pops
    /// both.
    Compare,
    /// `fstp st(0)`: pops, discarding the value.
    Pop,
    /// `fxam`, `fnstsw` of the status word (its class in C3, C2 and C0,
    /// the sign in C1) to memory, then `fstp st(0)`: pops.
    Examine(Address),
}

impl X87Step {
    /// How many values the step leaves on the x87 stack minus how many it
    /// takes.
    pub fn stack_effect(&self) -> i32 {
        match self {
            X87Step::Load(..) | X87Step::LoadInt(..) => 1,
            X87Step::Store(..)
            | X87Step::StoreIntTruncated { .. }
            | X87Step::Arith(_)
            | X87Step::Pop
            | X87Step::Examine(_) => -1,
            X87Step::Sqrt => 0,
            X87Step::Compare => -2,
        }
    }

    /// How many values the step reads from the x87 stack.
    pub fn stack_reads(&self) -> i32 {
        match self {
            X87Step::Load(..) | X87Step::LoadInt(..) => 0,
            X87Step::Store(..)
            | X87Step::StoreIntTruncated { .. }
            | X87Step::Sqrt
            | X87Step::Pop
            | X87Step::Examine(_) => 1,
            X87Step::Arith(_) | X87Step::Compare => 2,
        }
    }
}

/// The instruction sequences of the x86-64 TLS models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TlsAccess {
    /// General dynamic: `data16 lea rdi, [rip + x@TLSGD]; data16 data16
    /// rex64 call __tls_get_addr@PLT` (a call: clobbers the caller-saved
    /// registers; the address is in rax).
    GeneralDynamic,
    /// Local dynamic, the module's block: `lea rdi, [rip + x@TLSLD]; call
    /// __tls_get_addr@PLT` (a call; the block's address is in rax).
    LocalDynamicBlock,
    /// Local dynamic, the variable: `lea dst, [base + x@DTPOFF]`.
    LocalDynamicOffset,
    /// Initial exec: `mov dst, fs:[0]; add dst, [rip + x@GOTTPOFF]`.
    InitialExec,
    /// Local exec: `mov dst, fs:[0]; lea dst, [dst + x@TPOFF]`.
    LocalExec,
    /// The thread pointer itself (`llvm.thread.pointer`): `mov dst,
    /// fs:[0]`, no symbol.
    ThreadPointer,
}

impl TlsAccess {
    /// Whether the sequence calls `__tls_get_addr`.
    pub fn is_call(self) -> bool {
        matches!(
            self,
            TlsAccess::GeneralDynamic | TlsAccess::LocalDynamicBlock
        )
    }
}

/// The selected form of one inline asm statement.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InlineAsm {
    /// The register operands and how the statement accesses them (outputs
    /// `Def`, inputs `Use`, tied and early-clobber outputs `UseDef`).
    pub regs: Vec<(Reg, Access)>,
    /// The instructions, in order.
    pub instrs: Vec<AsmInstr>,
    /// Physical registers the statement reads (pinned inputs).
    pub uses: RegSet,
    /// Physical registers it writes (pinned outputs, clobbers).
    pub defs: RegSet,
    /// Alignment directives (`.p2align`, `.balign`): `(i, bytes)` puts
    /// `nop`s before instruction `i` (the statement's end when `i` is
    /// `instrs.len()`) until it starts at a multiple of `bytes`, a power of
    /// two.
    pub alignments: Vec<(usize, u32)>,
    /// The template as written, for printing.
    pub template: String,
}

/// One machine instruction of an inline asm statement.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AsmInstr {
    /// The iced-x86 instruction code.
    pub code: iced_x86::Code,
    /// A `lock` prefix.
    pub lock: bool,
    /// Operands in Intel order.
    pub operands: Vec<AsmOperand>,
}

/// An operand of an [`AsmInstr`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AsmOperand {
    /// `regs[index]` at `width`.
    Reg {
        /// Index into [`InlineAsm::regs`].
        index: usize,
        /// The width the template names it at.
        width: Width,
    },
    /// A physical register the template names (`%eax`).
    Fixed(Gpr, Width),
    /// Memory.
    Mem(Address),
    /// An immediate.
    Imm(i64),
}

/// One instruction with its source location.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    /// The operation.
    pub kind: InstKind,
    /// Opaque source-location id (0: none).
    pub loc: u32,
}

impl Inst {
    /// An instruction with a location.
    pub fn new(kind: InstKind, loc: u32) -> Inst {
        Inst { kind, loc }
    }

    /// Whether this is a debug instruction (never affects code).
    pub fn is_debug(&self) -> bool {
        matches!(self.kind, InstKind::DbgValue(_))
    }

    /// Whether this instruction ends a block's straight-line part.
    pub fn is_terminator(&self) -> bool {
        matches!(
            self.kind,
            InstKind::Jcc { .. }
                | InstKind::Jmp { .. }
                | InstKind::JmpIndirect { .. }
                | InstKind::Ret { .. }
                | InstKind::TailJump { .. }
                | InstKind::Ud2
        )
    }
}

/// How an instruction touches a register operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read only.
    Use,
    /// Written only (the old value is dead before the write).
    Def,
    /// Read, then written (two-address destinations, partial writes).
    UseDef,
}

impl InstKind {
    /// Calls `f` on every explicit register operand (including address
    /// registers, which are uses) with how it is accessed. Debug operands
    /// are not visited; implicit physical registers are given by
    /// [`InstKind::implicit_uses`] and [`InstKind::implicit_defs`].
    pub fn visit_regs_mut<F: FnMut(&mut Reg, Access) + ?Sized>(&mut self, f: &mut F) {
        visit_regs_exclusive(self, f);
    }

    /// Calls `f` on every memory operand's address.
    pub fn visit_addresses_mut(&mut self, f: &mut dyn FnMut(&mut Address)) {
        visit_addresses_exclusive(self, f);
    }

    /// Calls `f` on every memory operand's address, read-only.
    pub fn visit_addresses(&self, f: &mut dyn FnMut(&Address)) {
        visit_addresses_shared(self, f);
    }

    /// The stack slots the instruction's memory operands address.
    pub fn slots_addressed(&self) -> Vec<StackSlotId> {
        let mut slots = Vec::new();
        self.visit_addresses(&mut |a| {
            if let AddressBase::Slot(s) = a.base {
                slots.push(s);
            }
        });
        slots
    }

    /// Calls `f` on every explicit register operand, read-only.
    pub fn visit_regs<F: FnMut(Reg, Access) + ?Sized>(&self, f: &mut F) {
        visit_regs_shared(self, &mut |r, a| f(*r, a));
    }

    /// Physical registers read implicitly (call arguments, rax/rdx of
    /// `div`, cl of a shift, return values, …).
    pub fn implicit_uses(&self) -> RegSet {
        let gprs = |regs: &[Gpr]| RegSet::from_gprs(GprSet::of(regs));
        match self {
            InstKind::Shift {
                amount: ShiftAmount::Cl,
                ..
            } => gprs(&[Gpr::Rcx]),
            InstKind::SignExtendAx { .. } => gprs(&[Gpr::Rax]),
            InstKind::Div { .. } => gprs(&[Gpr::Rax, Gpr::Rdx]),
            InstKind::MulWide { .. } => gprs(&[Gpr::Rax]),
            InstKind::InlineAsm(asm) => asm.uses,
            InstKind::Call { args, .. } => RegSet::of(args),
            InstKind::Ret { uses } => RegSet::of(uses),
            InstKind::TailJump { args, .. } => RegSet::of(args),
            InstKind::Push { reg } => gprs(&[*reg]),
            _ => RegSet::EMPTY,
        }
    }

    /// Physical registers written implicitly (call results and clobbers,
    /// rax/rdx of `div`, rdx of `cqo`, …).
    pub fn implicit_defs(&self) -> RegSet {
        let gprs = |regs: &[Gpr]| RegSet::from_gprs(GprSet::of(regs));
        match self {
            InstKind::SignExtendAx { .. } => gprs(&[Gpr::Rdx]),
            InstKind::Div { .. } | InstKind::MulWide { .. } => gprs(&[Gpr::Rax, Gpr::Rdx]),
            InstKind::InlineAsm(asm) => asm.defs,
            InstKind::Call { rets, clobbers, .. } => RegSet::of(rets).union(*clobbers),
            InstKind::ThreadLocal { access, .. } if access.is_call() => {
                crate::x86::abi::CALLER_SAVED
            }
            InstKind::Pop { reg } => gprs(&[*reg]),
            _ => RegSet::EMPTY,
        }
    }
}

/// Defines a register visitor over an instruction, shared (`&`) or
/// exclusive (`&mut`), from one body so the two cannot disagree.
macro_rules! reg_visitor {
    ($name:ident $(, $m:ident)?) => {
        fn $name<F: FnMut(&$($m)? Reg, Access) + ?Sized>(kind: &$($m)? InstKind, f: &mut F) {
            fn addr<F: FnMut(&$($m)? Reg, Access) + ?Sized>(a: &$($m)? Address, f: &mut F) {
                if let AddressBase::Reg(r) = &$($m)? a.base {
                    f(r, Access::Use);
                }
                if let Some((r, _)) = &$($m)? a.index {
                    f(r, Access::Use);
                }
            }
            fn rm<F: FnMut(&$($m)? Reg, Access) + ?Sized>(o: &$($m)? Rm, f: &mut F) {
                match o {
                    Rm::Reg(r) => f(r, Access::Use),
                    Rm::Mem(a) => addr(a, f),
                }
            }
            fn rmi<F: FnMut(&$($m)? Reg, Access) + ?Sized>(o: &$($m)? Rmi, f: &mut F) {
                match o {
                    Rmi::Reg(r) => f(r, Access::Use),
                    Rmi::Mem(a) => addr(a, f),
                    Rmi::Imm(_) => {}
                }
            }
            match kind {
                InstKind::Copy { dst, src } => {
                    f(src, Access::Use);
                    f(dst, Access::Def);
                }
                InstKind::MovImm { dst, width, .. } => f(dst, partial_def(*width)),
                InstKind::Load {
                    dst,
                    addr: a,
                    width,
                } => {
                    addr(a, f);
                    f(dst, partial_def(*width));
                }
                InstKind::Store { src, addr: a, .. } | InstKind::AluMem { src, addr: a, .. } => {
                    if let Ri::Reg(r) = src {
                        f(r, Access::Use);
                    }
                    addr(a, f);
                }
                InstKind::Extend { dst, src, to, .. } => {
                    rm(src, f);
                    f(dst, partial_def(*to));
                }
                InstKind::Lea { dst, addr: a } | InstKind::Lea32 { dst, addr: a } => {
                    addr(a, f);
                    f(dst, Access::Def);
                }
                InstKind::Alu { dst, src, .. } => {
                    rmi(src, f);
                    f(dst, Access::UseDef);
                }
                InstKind::Imul { dst, src, .. } => {
                    rm(src, f);
                    f(dst, Access::UseDef);
                }
                InstKind::ImulImm {
                    dst, src, width, ..
                } => {
                    rm(src, f);
                    f(dst, partial_def(*width));
                }
                InstKind::Shift { dst, .. } | InstKind::Unary { dst, .. } => f(dst, Access::UseDef),
                InstKind::Cmp { lhs, rhs, .. } => {
                    rm(lhs, f);
                    rmi(rhs, f);
                }
                InstKind::Test { lhs, rhs, .. } => {
                    rm(lhs, f);
                    if let Ri::Reg(r) = rhs {
                        f(r, Access::Use);
                    }
                }
                InstKind::Bt { base, bit, .. } => {
                    f(base, Access::Use);
                    f(bit, Access::Use);
                }
                InstKind::Cmov { dst, src, .. } => {
                    rm(src, f);
                    f(dst, Access::UseDef);
                }
                InstKind::Setcc { dst, .. } => f(dst, Access::UseDef),
                InstKind::Div { divisor, .. } => rm(divisor, f),
                InstKind::MulWide { src, .. } => rm(src, f),
                InstKind::InlineAsm(asm) => {
                    for op in &$($m)? asm.instrs {
                        for o in &$($m)? op.operands {
                            if let AsmOperand::Mem(a) = o {
                                addr(a, f);
                            }
                        }
                    }
                    for (r, access) in &$($m)? asm.regs {
                        f(r, *access);
                    }
                }
                InstKind::BitScan { dst, src, .. } => {
                    rm(src, f);
                    f(dst, Access::Def);
                }
                InstKind::ThreadLocal { dst, base, .. } => {
                    if let Some(base) = base {
                        f(base, Access::Use);
                    }
                    if let Some(dst) = dst {
                        f(dst, Access::Def);
                    }
                }
                InstKind::Call { target, .. } | InstKind::TailJump { target, .. } => {
                    if let CallTarget::Reg(r) = target {
                        f(r, Access::Use);
                    }
                }
                InstKind::JmpIndirect { target, .. } => f(target, Access::Use),
                InstKind::FpLoad { dst, addr: a, .. } => {
                    addr(a, f);
                    f(dst, Access::Def);
                }
                InstKind::FpStore { src, addr: a, .. } => {
                    f(src, Access::Use);
                    addr(a, f);
                }
                InstKind::FpArith { dst, src, .. } | InstKind::FpCmpMask { dst, src, .. } => {
                    rm(src, f);
                    f(dst, Access::UseDef);
                }
                // A scalar result leaves the register's upper elements as
                // they were, but no value of ours lives there: a definition.
                InstKind::FpSqrt { dst, src, .. }
                | InstKind::IntToFp { dst, src, .. }
                | InstKind::FpToInt { dst, src, .. }
                | InstKind::FpConvert { dst, src, .. }
                | InstKind::MovToXmm { dst, src, .. } => {
                    rm(src, f);
                    f(dst, Access::Def);
                }
                InstKind::FpLogic { dst, src, .. } => {
                    f(src, Access::Use);
                    f(dst, Access::UseDef);
                }
                InstKind::FpCmp { lhs, rhs, .. } => {
                    f(lhs, Access::Use);
                    rm(rhs, f);
                }
                InstKind::MovFromXmm { dst, src, .. } => {
                    f(src, Access::Use);
                    f(dst, Access::Def);
                }
                InstKind::XmmZero { dst } => f(dst, Access::Def),
                InstKind::VecLoad { dst, addr: a, .. } => {
                    addr(a, f);
                    f(dst, Access::Def);
                }
                InstKind::VecStore { src, addr: a, .. } => {
                    f(src, Access::Use);
                    addr(a, f);
                }
                InstKind::Packed { dst, src, .. } => {
                    f(src, Access::Use);
                    f(dst, Access::UseDef);
                }
                InstKind::PackedShiftImm { dst, .. } => f(dst, Access::UseDef),
                InstKind::PackedShuffleImm { dst, src, .. } | InstKind::MoveMask { dst, src } => {
                    f(src, Access::Use);
                    f(dst, Access::Def);
                }
                InstKind::X87 { steps, .. } => {
                    for step in steps {
                        match step {
                            X87Step::Load(a, _)
                            | X87Step::LoadInt(a, _)
                            | X87Step::Store(a, _)
                            | X87Step::Examine(a) => addr(a, f),
                            X87Step::StoreIntTruncated {
                                addr: a, control, ..
                            } => {
                                addr(a, f);
                                addr(control, f);
                            }
                            X87Step::Arith(_)
                            | X87Step::Sqrt
                            | X87Step::Compare
                            | X87Step::Pop => {}
                        }
                    }
                }
                InstKind::SignExtendAx { .. }
                | InstKind::Jcc { .. }
                | InstKind::Jmp { .. }
                | InstKind::Ret { .. }
                | InstKind::Ud2
                | InstKind::Trap { .. }
                | InstKind::Push { .. }
                | InstKind::Pop { .. }
                | InstKind::DbgValue(_) => {}
            }
        }
    };
}

/// Defines an address visitor over an instruction, shared (`&`) or
/// exclusive (`&mut`), from one body so the two cannot disagree.
macro_rules! address_visitor {
    ($name:ident, $iter:ident $(, $m:ident)?) => {
        fn $name(kind: &$($m)? InstKind, f: &mut dyn FnMut(&$($m)? Address)) {
            match kind {
                InstKind::Load { addr, .. }
                | InstKind::Store { addr, .. }
                | InstKind::AluMem { addr, .. }
                | InstKind::Lea { addr, .. }
                | InstKind::Lea32 { addr, .. } => f(addr),
                InstKind::Extend {
                    src: Rm::Mem(a), ..
                }
                | InstKind::Imul {
                    src: Rm::Mem(a), ..
                }
                | InstKind::ImulImm {
                    src: Rm::Mem(a), ..
                }
                | InstKind::Cmov {
                    src: Rm::Mem(a), ..
                }
                | InstKind::Div {
                    divisor: Rm::Mem(a),
                    ..
                }
                | InstKind::Test {
                    lhs: Rm::Mem(a), ..
                }
                | InstKind::Alu {
                    src: Rmi::Mem(a), ..
                }
                | InstKind::FpArith {
                    src: Rm::Mem(a), ..
                }
                | InstKind::FpSqrt {
                    src: Rm::Mem(a), ..
                }
                | InstKind::FpCmp {
                    rhs: Rm::Mem(a), ..
                }
                | InstKind::FpCmpMask {
                    src: Rm::Mem(a), ..
                }
                | InstKind::IntToFp {
                    src: Rm::Mem(a), ..
                }
                | InstKind::FpToInt {
                    src: Rm::Mem(a), ..
                }
                | InstKind::FpConvert {
                    src: Rm::Mem(a), ..
                }
                | InstKind::MovToXmm {
                    src: Rm::Mem(a), ..
                }
                | InstKind::BitScan {
                    src: Rm::Mem(a), ..
                }
                | InstKind::MulWide {
                    src: Rm::Mem(a), ..
                } => f(a),
                InstKind::InlineAsm(asm) => {
                    for op in asm.instrs.$iter().flat_map(|i| &$($m)? i.operands) {
                        if let AsmOperand::Mem(a) = op {
                            f(a);
                        }
                    }
                }
                InstKind::FpLoad { addr, .. }
                | InstKind::FpStore { addr, .. }
                | InstKind::VecLoad { addr, .. }
                | InstKind::VecStore { addr, .. } => f(addr),
                InstKind::Cmp { lhs, rhs, .. } => {
                    if let Rm::Mem(a) = lhs {
                        f(a);
                    }
                    if let Rmi::Mem(a) = rhs {
                        f(a);
                    }
                }
                InstKind::X87 { steps, .. } => {
                    for step in steps.$iter() {
                        match step {
                            X87Step::Load(a, _)
                            | X87Step::LoadInt(a, _)
                            | X87Step::Store(a, _)
                            | X87Step::Examine(a) => f(a),
                            X87Step::StoreIntTruncated { addr, control, .. } => {
                                f(addr);
                                f(control);
                            }
                            X87Step::Arith(_)
                            | X87Step::Sqrt
                            | X87Step::Compare
                            | X87Step::Pop => {}
                        }
                    }
                }
                _ => {}
            }
        }
    };
}

address_visitor!(visit_addresses_shared, iter);
address_visitor!(visit_addresses_exclusive, iter_mut, mut);

reg_visitor!(visit_regs_shared);
reg_visitor!(visit_regs_exclusive, mut);

/// A definition of fewer than 32 bits keeps the register's upper bits, so
/// it also reads the old value.
fn partial_def(width: Width) -> Access {
    if width >= Width::W32 {
        Access::Def
    } else {
        Access::UseDef
    }
}

/// A basic block: straight-line instructions ending in terminators.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// The instructions, terminators last.
    pub insts: Vec<Inst>,
}

impl Block {
    /// Inserts an instruction of `kind` before the block's first
    /// terminator (at its end if it has none), with the location of the
    /// last non-debug instruction before that point.
    pub fn insert_before_jumps(&mut self, kind: InstKind) {
        let insts = &mut self.insts;
        let at = insts
            .iter()
            .position(|i| i.is_terminator())
            .unwrap_or(insts.len());
        let loc = insts[..at]
            .iter()
            .rev()
            .find(|i| !i.is_debug())
            .map_or(0, |i| i.loc);
        insts.insert(at, Inst::new(kind, loc));
    }
}

/// A machine function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Function {
    /// Symbol name.
    pub name: String,
    /// Blocks in layout order, entry first.
    pub blocks: Vec<Block>,
    /// Virtual registers, indexed by [`VReg`].
    pub vregs: Vec<VRegInfo>,
    /// Stack slots (allocas and spills), indexed by [`StackSlotId`].
    pub stack_slots: Vec<StackSlot>,
    /// Jump tables: each a list of target blocks, indexed by [`JumpTableId`].
    pub jump_tables: Vec<Vec<BlockId>>,
    /// Bytes of outgoing stack arguments the largest call needs (a multiple
    /// of 8; frame lowering reserves them at `[rsp]`).
    pub outgoing_args_size: u32,
    /// Whether the body moves rsp (dynamic allocas, `stackrestore`): the
    /// epilogue then restores rsp from rbp rather than by adding the frame
    /// size.
    pub moves_stack_pointer: bool,
    /// Whether the body reads its frame's address (`llvm.frameaddress`):
    /// rbp then stays the frame pointer, whatever the function's
    /// `"frame-pointer"` attribute says (as LLVM's `frameAddressIsTaken`).
    pub frame_address_taken: bool,
    /// Whether the frame is addressed from rsp with no frame pointer, so rbp
    /// is an allocatable callee-saved register (decided by
    /// [`super::frame::omits_frame_pointer`] before allocation; false keeps
    /// rbp as the frame pointer).
    pub omits_frame_pointer: bool,
    /// The constant pool, indexed by [`ConstantId`] (each entry once).
    pub constants: Vec<PoolConstant>,
    /// Branch weights from the IR's `!prof` metadata, for block placement:
    /// a block's listed edges are taken in proportion to their weights.
    pub edge_weights: Vec<EdgeWeight>,
    /// Per debug expression (indexed by `DbgValue::expr`): the widest value
    /// its operands hold, in bits (instruction selection's `DebugTable`
    /// says it; LiveDebugValues follows a value through an extending move
    /// only when the move keeps all of it). Missing: 64.
    pub debug_value_bits: Vec<u16>,
    /// Per variable (indexed by `DbgValue::variable`): the variables whose
    /// bits it shares, itself included (instruction selection's
    /// `DebugTable::overlapping_variables`): a debug value of one ends the
    /// locations of the others. Missing: itself alone.
    pub debug_overlapping: Vec<Vec<u32>>,
}

/// The weight of one control-flow edge, relative to the other edges of
/// its block (`!prof !{!"branch_weights", ...}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdgeWeight {
    /// The branching block.
    pub from: BlockId,
    /// The successor.
    pub to: BlockId,
    /// The weight.
    pub weight: u32,
}

impl Function {
    /// An empty function named `name`.
    pub fn new(name: &str) -> Function {
        Function {
            name: name.to_string(),
            ..Function::default()
        }
    }

    /// A fresh general-purpose virtual register of `width`.
    pub fn new_vreg(&mut self, width: Width) -> Reg {
        self.new_vreg_of(RegClass::General, width)
    }

    /// A fresh xmm virtual register holding a value of `size`.
    pub fn new_xmm_vreg(&mut self, size: FpSize) -> Reg {
        self.new_vreg_of(RegClass::Xmm, size.width())
    }

    /// A fresh virtual register of `class` holding `width` bits.
    pub fn new_vreg_of(&mut self, class: RegClass, width: Width) -> Reg {
        self.vregs.push(VRegInfo {
            width,
            class,
            vector: false,
        });
        Reg::Virt(VReg(self.vregs.len() as u32 - 1))
    }

    /// A fresh xmm virtual register holding a vector (or a part of one).
    pub fn new_vector_vreg(&mut self) -> Reg {
        self.vregs.push(VRegInfo {
            width: Width::W64,
            class: RegClass::Xmm,
            vector: true,
        });
        Reg::Virt(VReg(self.vregs.len() as u32 - 1))
    }

    /// Whether `reg` is a virtual register holding a vector.
    pub fn is_vector(&self, reg: Reg) -> bool {
        matches!(reg, Reg::Virt(v) if self.vregs[v.0 as usize].vector)
    }

    /// The class of `reg`.
    pub fn class_of(&self, reg: Reg) -> RegClass {
        match reg {
            Reg::Virt(v) => self.vregs[v.0 as usize].class,
            Reg::Phys(p) => p.class(),
        }
    }

    /// A fresh stack slot.
    pub fn new_stack_slot(&mut self, size: u32, align: u32, kind: StackSlotKind) -> StackSlotId {
        self.stack_slots.push(StackSlot { size, align, kind });
        StackSlotId(self.stack_slots.len() as u32 - 1)
    }

    /// The constant-pool entry holding `bytes` (made on first use).
    pub fn constant(&mut self, bytes: &[u8]) -> ConstantId {
        let index = match self.constants.iter().position(|c| c.bytes == bytes) {
            Some(i) => i,
            None => {
                self.constants.push(PoolConstant {
                    bytes: bytes.to_vec(),
                });
                self.constants.len() - 1
            }
        };
        ConstantId(index as u32)
    }

    /// Whether each stack slot (by index) is a register allocator's spill
    /// slot, which only spill code addresses.
    pub fn spill_slot_mask(&self) -> Vec<bool> {
        self.stack_slots
            .iter()
            .map(|slot| slot.kind == StackSlotKind::Spill)
            .collect()
    }

    /// A fresh empty block appended to the layout.
    pub fn new_block(&mut self) -> BlockId {
        self.blocks.push(Block::default());
        BlockId(self.blocks.len() as u32 - 1)
    }

    /// Every block's successors ([`Function::successors`]) as block
    /// indices, for the passes that walk the control-flow graph.
    pub fn successor_lists(&self) -> Vec<Vec<usize>> {
        (0..self.blocks.len())
            .map(|b| {
                // Most blocks have one or two successors.
                let mut out = Vec::with_capacity(2);
                self.for_each_successor(BlockId(b as u32), |s| out.push(s.0 as usize));
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect()
    }

    /// Every block's predecessors (the blocks whose
    /// [`Function::successors`] include it), as block indices in order.
    pub fn predecessor_lists(&self) -> Vec<Vec<usize>> {
        let mut predecessors = vec![Vec::new(); self.blocks.len()];
        for (p, successors) in self.successor_lists().into_iter().enumerate() {
            for s in successors {
                predecessors[s].push(p);
            }
        }
        predecessors
    }

    /// Successors of block `b`: jump targets, jump-table targets, and the
    /// next block when control can fall through.
    pub fn successors(&self, b: BlockId) -> Vec<BlockId> {
        let mut out = Vec::with_capacity(2);
        self.for_each_successor(b, |s| out.push(s));
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Calls `f` for every successor of block `b`, in the order the block
    /// names them, a block named twice twice.
    fn for_each_successor(&self, b: BlockId, mut f: impl FnMut(BlockId)) {
        let insts = &self.blocks[b.0 as usize].insts;
        for inst in insts.iter().filter(|i| !i.is_debug()) {
            match &inst.kind {
                InstKind::Jcc { target, .. }
                | InstKind::Jmp { target }
                | InstKind::Call {
                    unwind: Some(target),
                    ..
                } => f(*target),
                InstKind::JmpIndirect { table, .. } => {
                    self.jump_tables[table.0 as usize]
                        .iter()
                        .copied()
                        .for_each(&mut f);
                }
                _ => {}
            }
        }
        let next = b.0 as usize + 1;
        if self.falls_through(b) && next < self.blocks.len() {
            f(BlockId(next as u32));
        }
    }

    /// Whether control can run off the end of block `b` into the next one:
    /// its last non-debug instruction is no unconditional jump, return or
    /// trap.
    pub fn falls_through(&self, b: BlockId) -> bool {
        !self.blocks[b.0 as usize]
            .insts
            .iter()
            .rev()
            .find(|i| !i.is_debug())
            .is_some_and(|i| {
                matches!(
                    i.kind,
                    InstKind::Jmp { .. }
                        | InstKind::JmpIndirect { .. }
                        | InstKind::Ret { .. }
                        | InstKind::TailJump { .. }
                        | InstKind::Ud2
                )
            })
    }
}

impl fmt::Display for VReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reg::Virt(v) => v.fmt(f),
            Reg::Phys(p) => write!(f, "${p}"),
        }
    }
}

impl fmt::Display for BlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bb.{}", self.0)
    }
}

impl fmt::Display for StackSlotId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%stack.{}", self.0)
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        match &self.base {
            AddressBase::Reg(r) => write!(f, "{r}")?,
            AddressBase::Slot(s) => write!(f, "{s}")?,
            AddressBase::IncomingArgs => f.write_str("%incoming-args")?,
            AddressBase::OutgoingArgs => f.write_str("%outgoing-args")?,
            AddressBase::Symbol(s) => write!(f, "@{s}")?,
            AddressBase::Got(s) => write!(f, "@{s}@GOTPCREL")?,
            AddressBase::JumpTable(t) => write!(f, "%jump-table.{}", t.0)?,
            AddressBase::Constant(c) => write!(f, "%const.{}", c.0)?,
        }
        if let Some((r, scale)) = &self.index {
            write!(f, " + {r}*{scale}")?;
        }
        if self.disp != 0 {
            write!(
                f,
                " {} {}",
                if self.disp < 0 { '-' } else { '+' },
                self.disp.unsigned_abs()
            )?;
        }
        f.write_str("]")
    }
}

impl fmt::Display for Rm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rm::Reg(r) => r.fmt(f),
            Rm::Mem(a) => a.fmt(f),
        }
    }
}

impl fmt::Display for Rmi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rmi::Reg(r) => r.fmt(f),
            Rmi::Mem(a) => a.fmt(f),
            Rmi::Imm(i) => i.fmt(f),
        }
    }
}

impl fmt::Display for Ri {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ri::Reg(r) => r.fmt(f),
            Ri::Imm(i) => i.fmt(f),
        }
    }
}

impl fmt::Display for DbgOperand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DbgOperand::Reg(r) => r.fmt(f),
            DbgOperand::Imm(i) => i.fmt(f),
            DbgOperand::StackSlot(s) => write!(f, "&{s}"),
            DbgOperand::SpillSlot(s, w) => write!(f, "{s}:{}", w.bits()),
            DbgOperand::IncomingArg(n) => write!(f, "&incoming+{n}"),
            DbgOperand::IncomingValue(n, w) => write!(f, "incoming+{n}:{}", w.bits()),
            DbgOperand::NoReg => f.write_str("$noreg"),
        }
    }
}

impl fmt::Display for InstKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstKind::Copy { dst, src } => write!(f, "{dst} = COPY {src}"),
            InstKind::MovImm { dst, imm, width } => {
                write!(f, "{dst} = MOV{} {imm}", width.bits())
            }
            InstKind::Load { dst, addr, width } => {
                write!(f, "{dst} = LOAD{} {addr}", width.bits())
            }
            InstKind::Store { src, addr, width } => {
                write!(f, "STORE{} {addr}, {src}", width.bits())
            }
            InstKind::AluMem {
                op,
                width,
                addr,
                src,
            } => write!(
                f,
                "{}{} {addr}, {src}",
                format!("{op:?}").to_uppercase(),
                width.bits()
            ),
            InstKind::Extend {
                dst,
                src,
                from,
                to,
                signed,
            } => write!(
                f,
                "{dst} = MOV{}X{}_{} {src}",
                if *signed { 'S' } else { 'Z' },
                to.bits(),
                from.bits()
            ),
            InstKind::Lea { dst, addr } => write!(f, "{dst} = LEA {addr}"),
            InstKind::Lea32 { dst, addr } => write!(f, "{dst} = LEA32 {addr}"),
            InstKind::Alu {
                op,
                width,
                dst,
                src,
            } => write!(
                f,
                "{dst} = {}{} {dst}, {src}",
                format!("{op:?}").to_uppercase(),
                width.bits()
            ),
            InstKind::Imul { width, dst, src } => {
                write!(f, "{dst} = IMUL{} {dst}, {src}", width.bits())
            }
            InstKind::ImulImm {
                width,
                dst,
                src,
                imm,
            } => write!(f, "{dst} = IMUL{} {src}, {imm}", width.bits()),
            InstKind::Shift {
                op,
                width,
                dst,
                amount,
            } => {
                let op = format!("{op:?}").to_uppercase();
                match amount {
                    ShiftAmount::Cl => write!(f, "{dst} = {op}{} {dst}, $cl", width.bits()),
                    ShiftAmount::Imm(n) => write!(f, "{dst} = {op}{} {dst}, {n}", width.bits()),
                }
            }
            InstKind::Unary { op, width, dst } => write!(
                f,
                "{dst} = {}{} {dst}",
                format!("{op:?}").to_uppercase(),
                width.bits()
            ),
            InstKind::Cmp { width, lhs, rhs } => write!(f, "CMP{} {lhs}, {rhs}", width.bits()),
            InstKind::Test { width, lhs, rhs } => write!(f, "TEST{} {lhs}, {rhs}", width.bits()),
            InstKind::Bt { width, base, bit } => write!(f, "BT{} {base}, {bit}", width.bits()),
            InstKind::Setcc { cond, dst } => {
                write!(f, "{dst} = SET{}", cond.name().to_uppercase())
            }
            InstKind::Cmov {
                cond,
                width,
                dst,
                src,
            } => write!(
                f,
                "{dst} = CMOV{}{} {dst}, {src}",
                cond.name().to_uppercase(),
                width.bits()
            ),
            InstKind::SignExtendAx { width } => write!(f, "SIGNEXTEND{} $rax", width.bits()),
            InstKind::Div {
                signed,
                width,
                divisor,
            } => write!(
                f,
                "{}DIV{} {divisor}",
                if *signed { "I" } else { "" },
                width.bits()
            ),
            InstKind::Call {
                target,
                args,
                rets,
                clobbers,
                unwind,
            } => {
                match target {
                    CallTarget::Symbol(s) => write!(f, "CALL @{s}")?,
                    CallTarget::Reg(r) => write!(f, "CALL {r}")?,
                }
                let list = |regs: &mut dyn Iterator<Item = PhysReg>| {
                    regs.map(|r| format!("${r}")).collect::<Vec<_>>().join(", ")
                };
                write!(
                    f,
                    ", args({}), rets({})",
                    list(&mut args.iter().copied()),
                    list(&mut rets.iter().copied())
                )?;
                if *clobbers != crate::x86::abi::CALLER_SAVED {
                    write!(f, ", clobbers({})", list(&mut clobbers.iter()))?;
                }
                if let Some(pad) = unwind {
                    write!(f, ", unwind {pad}")?;
                }
                Ok(())
            }
            InstKind::Jcc { cond, target } => {
                write!(f, "J{} {target}", cond.name().to_uppercase())
            }
            InstKind::Jmp { target } => write!(f, "JMP {target}"),
            InstKind::JmpIndirect { target, table } => {
                write!(f, "JMP {target}, %jump-table.{}", table.0)
            }
            InstKind::Ret { uses } => {
                f.write_str("RET")?;
                for (i, r) in uses.iter().enumerate() {
                    write!(f, "{} ${r}", if i == 0 { "" } else { "," })?;
                }
                Ok(())
            }
            InstKind::TailJump { target, args } => {
                match target {
                    CallTarget::Symbol(s) => write!(f, "TAILJMP @{s}")?,
                    CallTarget::Reg(r) => write!(f, "TAILJMP {r}")?,
                }
                let list: Vec<String> = args.iter().map(|r| format!("${r}")).collect();
                write!(f, ", args({})", list.join(", "))
            }
            InstKind::Ud2 => f.write_str("UD2"),
            InstKind::Trap { breakpoint } => f.write_str(if *breakpoint { "INT3" } else { "TRAP" }),
            InstKind::BitScan {
                reverse,
                width,
                dst,
                src,
            } => write!(
                f,
                "{dst} = {}{} {src}",
                if *reverse { "BSR" } else { "BSF" },
                width.bits()
            ),
            InstKind::MulWide { width, src } => write!(f, "MUL{} {src}", width.bits()),
            InstKind::ThreadLocal {
                access,
                symbol,
                dst,
                base,
            } => {
                if let Some(dst) = dst {
                    write!(f, "{dst} = ")?;
                }
                write!(f, "TLS_{access:?} @{symbol}")?;
                match base {
                    Some(base) => write!(f, ", {base}"),
                    None => Ok(()),
                }
            }
            InstKind::InlineAsm(asm) => {
                write!(f, "INLINEASM {:?}", asm.template)?;
                for (r, access) in &asm.regs {
                    write!(f, ", {r}:{access:?}")?;
                }
                Ok(())
            }
            InstKind::Push { reg } => write!(f, "PUSH ${reg}"),
            InstKind::Pop { reg } => write!(f, "${reg} = POP"),
            InstKind::FpLoad { dst, addr, size } => {
                write!(f, "{dst} = FLOAD{} {addr}", size.bits())
            }
            InstKind::X87 {
                steps,
                stack_in,
                stack_out,
            } => {
                write!(f, "X87 {stack_in}->{stack_out}")?;
                for (i, step) in steps.iter().enumerate() {
                    write!(f, "{}", if i == 0 { " " } else { "; " })?;
                    match step {
                        X87Step::Load(a, format) => write!(f, "FLD{} {a}", format.bits())?,
                        X87Step::LoadInt(a, width) => write!(f, "FILD{} {a}", width.bits())?,
                        X87Step::Store(a, format) => write!(f, "FSTP{} {a}", format.bits())?,
                        X87Step::StoreIntTruncated {
                            addr,
                            width,
                            control,
                        } => write!(f, "FISTP{}_TRUNC {addr} (control {control})", width.bits())?,
                        X87Step::Arith(op) => write!(f, "F{}P", format!("{op:?}").to_uppercase())?,
                        X87Step::Sqrt => write!(f, "FSQRT")?,
                        X87Step::Compare => write!(f, "FUCOMIP; FSTP st0")?,
                        X87Step::Pop => write!(f, "FSTP st0")?,
                        X87Step::Examine(a) => write!(f, "FXAM; FNSTSW {a}; FSTP st0")?,
                    }
                }
                Ok(())
            }
            InstKind::FpStore { src, addr, size } => {
                write!(f, "FSTORE{} {addr}, {src}", size.bits())
            }
            InstKind::FpArith { op, size, dst, src } => write!(
                f,
                "{dst} = F{}{} {dst}, {src}",
                format!("{op:?}").to_uppercase(),
                size.bits()
            ),
            InstKind::FpSqrt { size, dst, src } => {
                write!(f, "{dst} = FSQRT{} {src}", size.bits())
            }
            InstKind::FpLogic { op, dst, src } => {
                let name = match op {
                    FpLogicOp::And => "ANDPS",
                    FpLogicOp::AndNot => "ANDNPS",
                    FpLogicOp::Or => "ORPS",
                    FpLogicOp::Xor => "XORPS",
                };
                write!(f, "{dst} = {name} {dst}, {src}")
            }
            InstKind::FpCmp {
                size,
                lhs,
                rhs,
                signaling,
            } => write!(
                f,
                "{}COMIS{} {lhs}, {rhs}",
                if *signaling { "" } else { "U" },
                size.bits()
            ),
            InstKind::FpCmpMask {
                size,
                predicate,
                dst,
                src,
            } => write!(
                f,
                "{dst} = FCMP{}.{} {dst}, {src}",
                size.bits(),
                format!("{predicate:?}").to_lowercase()
            ),
            InstKind::IntToFp {
                size,
                width,
                dst,
                src,
            } => write!(f, "{dst} = CVT_I{}_F{} {src}", width.bits(), size.bits()),
            InstKind::FpToInt {
                size,
                width,
                rounded,
                dst,
                src,
            } => {
                let op = if *rounded { "CVT" } else { "CVTT" };
                write!(f, "{dst} = {op}_F{}_I{} {src}", size.bits(), width.bits())
            }
            InstKind::FpConvert { from, dst, src } => {
                let to = match from {
                    FpSize::F32 => FpSize::F64,
                    FpSize::F64 => FpSize::F32,
                };
                write!(f, "{dst} = CVT_F{}_F{} {src}", from.bits(), to.bits())
            }
            InstKind::MovToXmm { width, dst, src } => {
                write!(f, "{dst} = MOV_TO_XMM{} {src}", width.bits())
            }
            InstKind::MovFromXmm { width, dst, src } => {
                write!(f, "{dst} = MOV_FROM_XMM{} {src}", width.bits())
            }
            InstKind::XmmZero { dst } => write!(f, "{dst} = XMM_ZERO"),
            InstKind::VecLoad { dst, addr, bytes } => write!(f, "{dst} = VLOAD{bytes} {addr}"),
            InstKind::VecStore { src, addr, bytes } => write!(f, "VSTORE{bytes} {addr}, {src}"),
            InstKind::Packed { op, dst, src } => write!(
                f,
                "{dst} = P{} {dst}, {src}",
                format!("{op:?}").to_uppercase()
            ),
            InstKind::PackedShiftImm { op, dst, imm } => write!(
                f,
                "{dst} = PSHIFT.{} {dst}, {imm}",
                format!("{op:?}").to_lowercase()
            ),
            InstKind::PackedShuffleImm { op, dst, src, imm } => write!(
                f,
                "{dst} = PSHUF.{} {src}, {imm}",
                format!("{op:?}").to_lowercase()
            ),
            InstKind::MoveMask { dst, src } => write!(f, "{dst} = PMOVMSKB {src}"),
            InstKind::DbgValue(d) => {
                let kind = if d.operands.len() == 1 {
                    "DBG_VALUE"
                } else {
                    "DBG_VALUE_LIST"
                };
                let ops: Vec<String> = d.operands.iter().map(|o| o.to_string()).collect();
                write!(
                    f,
                    "{kind} {}, !var{}, !expr{}{}{}",
                    ops.join(", "),
                    d.variable,
                    d.expr,
                    if d.indirect { ", indirect" } else { "" },
                    if d.moved { ", moved" } else { "" }
                )
            }
        }
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "name: {}", self.name)?;
        for (i, slot) in self.stack_slots.iter().enumerate() {
            writeln!(
                f,
                "  %stack.{i}: size {}, align {}, {}",
                slot.size,
                slot.align,
                format!("{:?}", slot.kind).to_lowercase()
            )?;
        }
        for (i, table) in self.jump_tables.iter().enumerate() {
            let targets: Vec<String> = table.iter().map(|b| b.to_string()).collect();
            writeln!(f, "  %jump-table.{i}: {}", targets.join(", "))?;
        }
        for (i, constant) in self.constants.iter().enumerate() {
            let hex: String = constant
                .bytes
                .iter()
                .rev()
                .map(|b| format!("{b:02x}"))
                .collect();
            writeln!(f, "  %const.{i}: 0x{hex}")?;
        }
        for (i, block) in self.blocks.iter().enumerate() {
            let succs: Vec<String> = self
                .successors(BlockId(i as u32))
                .iter()
                .map(|b| b.to_string())
                .collect();
            if succs.is_empty() {
                writeln!(f, "bb.{i}:")?;
            } else {
                writeln!(f, "bb.{i}:  ; succ {}", succs.join(", "))?;
            }
            for inst in &block.insts {
                if inst.loc == 0 {
                    writeln!(f, "  {}", inst.kind)?;
                } else {
                    writeln!(f, "  {}  ; loc {}", inst.kind, inst.loc)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn v(n: u32) -> Reg {
        Reg::Virt(VReg(n))
    }

    #[test]
    fn printer_and_successors() {
        let mut f = Function::new("max");
        let a = f.new_vreg(Width::W32);
        let b = f.new_vreg(Width::W32);
        let entry = f.new_block();
        let then = f.new_block();
        let exit = f.new_block();
        let insts = vec![
            InstKind::Copy {
                dst: a,
                src: Gpr::Rdi.into(),
            },
            InstKind::Copy {
                dst: b,
                src: Gpr::Rsi.into(),
            },
            InstKind::DbgValue(DbgValue {
                variable: 1,
                operands: vec![DbgOperand::Reg(a), DbgOperand::Imm(3)].into(),
                expr: 2,
                indirect: false,
                moved: false,
            }),
            InstKind::Cmp {
                width: Width::W32,
                lhs: Rm::Reg(a),
                rhs: Rmi::Reg(b),
            },
            InstKind::Jcc {
                cond: Cond::Ge,
                target: exit,
            },
        ];
        f.blocks[entry.0 as usize].insts = insts.into_iter().map(|k| Inst::new(k, 7)).collect();
        f.blocks[then.0 as usize].insts = vec![Inst::new(InstKind::Copy { dst: a, src: b }, 0)];
        f.blocks[exit.0 as usize].insts = vec![
            Inst::new(
                InstKind::Copy {
                    dst: Gpr::Rax.into(),
                    src: a,
                },
                8,
            ),
            Inst::new(
                InstKind::Ret {
                    uses: vec![Gpr::Rax.into()],
                },
                8,
            ),
        ];
        assert_eq!(f.successors(entry), [then, exit]);
        assert_eq!(f.successors(then), [exit]);
        assert_eq!(f.successors(exit), []);
        expect![[r#"
            name: max
            bb.0:  ; succ bb.1, bb.2
              %0 = COPY $rdi  ; loc 7
              %1 = COPY $rsi  ; loc 7
              DBG_VALUE_LIST %0, 3, !var1, !expr2  ; loc 7
              CMP32 %0, %1  ; loc 7
              JGE bb.2  ; loc 7
            bb.1:  ; succ bb.2
              %0 = COPY %1
            bb.2:
              $rax = COPY %0  ; loc 8
              RET $rax  ; loc 8
        "#]]
        .assert_eq(&f.to_string());
    }

    #[test]
    fn operand_access_kinds() {
        let kind = InstKind::Alu {
            op: AluOp::Add,
            width: Width::W64,
            dst: v(0),
            src: Rmi::Mem(Address {
                base: AddressBase::Reg(v(1)),
                index: Some((v(2), 4)),
                disp: 8,
            }),
        };
        let mut seen = Vec::new();
        kind.visit_regs(&mut |r, a| seen.push((r, a)));
        assert_eq!(
            seen,
            [
                (v(1), Access::Use),
                (v(2), Access::Use),
                (v(0), Access::UseDef)
            ]
        );
        let byte_load = InstKind::Load {
            dst: v(3),
            addr: Address::reg(v(1), 0),
            width: Width::W8,
        };
        let mut seen = Vec::new();
        byte_load.visit_regs(&mut |r, a| seen.push((r, a)));
        assert_eq!(seen, [(v(1), Access::Use), (v(3), Access::UseDef)]);
        let div = InstKind::Div {
            signed: true,
            width: Width::W32,
            divisor: Rm::Reg(v(4)),
        };
        let rax_rdx = RegSet::of(&[Gpr::Rax.into(), Gpr::Rdx.into()]);
        assert_eq!(div.implicit_uses(), rax_rdx);
        assert_eq!(div.implicit_defs(), rax_rdx);
    }
}
