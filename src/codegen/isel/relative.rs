//! `llvm.load.relative.iN(ptr base, iN offset)`: the pointer a relative
//! lookup table holds, `base + sext(load i32 [base + offset])` (tables
//! whose entries are `trunc (sub (ptrtoint @x, ptrtoint @table))`, written
//! as R_X86_64_PC32 by [`super::data`]).
//!
//! In: the call's arguments. Out: `lea base; movsxd entry, [base + offset];
//! add base, entry` into the call's result.

use super::*;

impl Selector<'_> {
    /// Lowers a call of `llvm.load.relative.*`.
    pub(super) fn lower_load_relative(
        &mut self,
        id: InstId,
        args: &[ir::CallArg],
    ) -> Result<(), Diagnostic> {
        let [base, offset] = args else {
            return Err(self.error("llvm.load.relative takes a pointer and an offset".into()));
        };
        if self.bits_of(&offset.value)? != 64 {
            return Err(self.error(
                "unsupported intrinsic: llvm.load.relative with an offset narrower than 64 bits"
                    .into(),
            ));
        }
        let dst = self.dst(id)?;
        let base_address = self.address(&base.value)?;
        let base_reg = self.vreg(Width::W64);
        self.emit(K::Lea {
            dst: base_reg,
            addr: base_address,
        });
        let offset_reg = self.reg(&offset.value)?;
        let entry = self.vreg(Width::W64);
        self.emit(K::Extend {
            dst: entry,
            src: Rm::Mem(Address {
                base: AddressBase::Reg(base_reg),
                index: Some((offset_reg, 1)),
                disp: 0,
            }),
            from: Width::W32,
            to: Width::W64,
            signed: true,
        });
        self.emit(K::Copy { dst, src: base_reg });
        self.emit(K::Alu {
            op: AluOp::Add,
            width: Width::W64,
            dst,
            src: Rmi::Reg(entry),
        });
        Ok(())
    }
}
