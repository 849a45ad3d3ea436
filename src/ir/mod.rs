//! The SSA IR, shaped like LLVM's, with its debug metadata.
//!
//! In: a module built by [`parse`] from .ll text (or by a pass). Out: the
//! data every later stage reads: [`Module`] → [`Function`] → [`Block`] →
//! [`Inst`], with [`Value`] operands, [`Type`]s, and the debug metadata
//! arenas in [`DebugInfo`].
//!
//! Promises (ARCHITECTURE.md decisions 1–3): debug records ride on the
//! instruction they precede ([`Inst::records`]), never in the instruction
//! list; every record expression uses explicit `DW_OP_LLVM_arg`; locations,
//! expressions and other metadata live in arenas addressed by small ids
//! ([`LocId`], [`ExprId`], [`MdId`]) and equal locations share one id.
//! Pointers are opaque: typed pointers are normalised to `ptr` on input.

pub mod cfg;
pub mod debug;
pub mod hash;
pub mod inst;
pub mod layout;
pub mod module;
pub mod parse;
pub mod print;
pub mod types;
pub mod value;
pub mod verify;

pub use debug::{
    AssignLink, DIExpression, DILocation, DebugInfo, DebugRecord, ExprId, ExprOp, LocId, MdEntry,
    MdId, MdNode, MdOperand, MdRef, RecordKind,
};
pub use inst::{
    ArithFlags, Atomic, BinOp, CallArg, CastOp, FBinOp, FCmpPred, FastMath, ICmpPred, Inst,
    InstKind, Intrinsic, LandingPadClause, Ordering, OverflowArith, OverflowOp, ParamAttrs, RmwOp,
    TailKind, X86Intrinsic,
};
pub use layout::GepStep;
pub use module::{
    AttributeGroup, Block, Comdat, Function, Global, Linkage, Module, ModuleAsm, NamedMetadata,
    Param, SymbolAttrs, UnnamedAddr,
};
pub use types::{FloatKind, FunctionType, StructDef, StructId, Type};
pub use value::{
    BlockId, ConstExpr, Constant, FuncId, GepFlags, GlobalId, GlobalRef, InlineAsm, InstId, Value,
};
