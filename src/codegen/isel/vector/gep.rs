//! `getelementptr` over vectors, as the loop vectoriser emits it when it
//! walks an array of structs with a vector of indices (sqlite's
//! `sqlite3VdbeExec`, zstd's literal decoding).
//!
//! In: a GEP whose result is a vector of pointers, with a scalar or vector
//! base and scalar or vector indices (a scalar operand stands for every
//! lane). Out: each lane's address computed with scalar instructions, the
//! way [`Selector::gep_address`] computes a scalar GEP's (base, plus each
//! index sign-extended to 64 bits times its stride, plus struct field
//! offsets), written to the result scratch slot, and the result's parts
//! loaded from it.
//!
//! Rule: lane `i` of the result is the scalar GEP of lane `i` of every
//! vector operand; offsets wrap as 64-bit adds, as GEP arithmetic does.

use super::*;

impl Selector<'_> {
    /// Selects the vector GEP `id`.
    pub(super) fn lower_vector_gep(&mut self, id: InstId) -> Result<(), Diagnostic> {
        let inst = self.f.inst(id);
        let InstKind::Gep {
            source,
            base,
            indices,
            ..
        } = &inst.kind
        else {
            return Err(self.error("internal: not a getelementptr".into()));
        };
        let result = self.must_vector(&Value::Inst(id))?;
        let steps = self
            .module
            .gep_steps(source, indices)
            .ok_or_else(|| self.error("unsupported getelementptr indices".into()))?;
        let vector_operands: Vec<&Value> = std::iter::once(base)
            .chain(indices)
            .filter(|v| matches!(self.f.value_type(v), Type::Vector { .. }))
            .collect();
        if vector_operands.len() >= RESULT_SCRATCH {
            return Err(self.error(format!(
                "unsupported getelementptr with {} vector operands",
                vector_operands.len()
            )));
        }
        // Each vector operand in a scratch slot of its own.
        let mut slots: Vec<(&Value, StackSlotId, VecTy)> = Vec::new();
        for (which, v) in vector_operands.into_iter().enumerate() {
            let ty = self.must_vector(v)?;
            let slot = self.spill_to_scratch(v, which)?;
            slots.push((v, slot, ty));
        }
        let lane_of = |slots: &[(&Value, StackSlotId, VecTy)], v: &Value| {
            slots
                .iter()
                .find(|(w, ..)| *w == v)
                .map(|&(_, s, t)| (s, t))
        };
        let out = self.scratch(RESULT_SCRATCH, result.scratch_bytes());
        for lane in 0..result.lanes {
            let address = self.vreg(Width::W64);
            let start = match lane_of(&slots, base) {
                Some((slot, ty)) => {
                    self.load_int_lane(Self::lane_address(slot, ty, lane), ty.lane, false)
                }
                None => self.reg(base)?,
            };
            self.emit(K::Copy {
                dst: address,
                src: start,
            });
            for step in &steps {
                let (index, stride) = match *step {
                    ir::GepStep::Offset(bytes) => {
                        self.add_offset(address, bytes as i64)?;
                        continue;
                    }
                    ir::GepStep::Scaled { index, stride } => (&indices[index], stride),
                };
                if let Some(c) = self.const_int(index) {
                    self.add_offset(address, c.wrapping_mul(stride as i64))?;
                    continue;
                }
                let (value, bits) = match lane_of(&slots, index) {
                    Some((slot, ty)) => {
                        let Lane::Int(bits) = ty.lane else {
                            return Err(self.error("unsupported getelementptr index lanes".into()));
                        };
                        let r =
                            self.load_int_lane(Self::lane_address(slot, ty, lane), ty.lane, true);
                        (r, bits)
                    }
                    None => (self.reg(index)?, self.bits_of(index)?),
                };
                let scaled = self.extend(value, bits, Width::W64, true);
                let product = self.vreg(Width::W64);
                self.emit(K::ImulImm {
                    width: Width::W64,
                    dst: product,
                    src: Rm::Reg(scaled),
                    imm: i32::try_from(stride)
                        .map_err(|_| self.error("getelementptr stride too large".into()))?,
                });
                self.emit(K::Alu {
                    op: AluOp::Add,
                    width: Width::W64,
                    dst: address,
                    src: Rmi::Reg(product),
                });
            }
            self.store_int_lane(Self::lane_address(out, result, lane), result.lane, address);
        }
        self.reload_result(id, out);
        Ok(())
    }

    /// `address += bytes`, through a register when `bytes` does not fit an
    /// immediate.
    fn add_offset(&mut self, address: Reg, bytes: i64) -> Result<(), Diagnostic> {
        if bytes == 0 {
            return Ok(());
        }
        let src = match i32::try_from(bytes) {
            Ok(imm) => Rmi::Imm(imm),
            Err(_) => {
                let r = self.vreg(Width::W64);
                self.emit(K::MovImm {
                    dst: r,
                    imm: bytes,
                    width: Width::W64,
                });
                Rmi::Reg(r)
            }
        };
        self.emit(K::Alu {
            op: AluOp::Add,
            width: Width::W64,
            dst: address,
            src,
        });
        Ok(())
    }
}
