//! Builders the unit tests of the machine passes share: physical
//! registers, debug values and the few instructions their hand-made
//! functions are written with.

use super::mir::{DbgOperand, DbgValue, Gpr, InstKind, Reg, Width};

/// A general-purpose register as an operand.
pub fn phys(g: Gpr) -> Reg {
    g.into()
}

/// A DBG_VALUE of `variable` over `operands` (expression 0, direct).
pub fn dbg(variable: u32, operands: Vec<DbgOperand>) -> InstKind {
    InstKind::DbgValue(DbgValue {
        variable,
        operands: operands.into(),
        expr: 0,
        indirect: false,
        moved: false,
    })
}

/// `mov $imm, dst` (64-bit).
pub fn mov(dst: Reg, imm: i64) -> InstKind {
    InstKind::MovImm {
        dst,
        imm,
        width: Width::W64,
    }
}

/// A return of rax.
pub fn ret() -> InstKind {
    InstKind::Ret {
        uses: vec![Gpr::Rax.into()],
    }
}
