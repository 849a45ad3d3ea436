//! The .ll writer: prints a module as LLVM IR text, with debug records or
//! with llvm.dbg.* intrinsic calls.

/// How debug records are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DebugSyntax {
    /// `#dbg_value(...)` records (LLVM 19's default).
    #[default]
    Records,
    /// `call void @llvm.dbg.value(...)` intrinsic calls.
    Intrinsics,
}
