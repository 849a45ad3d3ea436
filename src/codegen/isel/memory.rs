//! Addresses: globals (RIP-relative, or through the GOT when they may be
//! preempted; thread-local ones per [`super::tls`]), constant expressions, allocas and GEPs folded into x86
//! addressing modes.
//!
//! In: pointer values. Out: MIR [`Address`] operands (and the `lea`s and
//! loads that compute what does not fold).

use super::*;

impl Selector<'_> {
    /// The address of a global symbol.
    pub(super) fn symbol_address(
        &mut self,
        g: GlobalRef,
        disp: i64,
    ) -> Result<Address, Diagnostic> {
        if let GlobalRef::Var(id) = g {
            let global = self.module.global(id);
            if global.attrs.thread_local.is_some() {
                let base = self.thread_local_address(global)?;
                let disp = i32::try_from(disp)
                    .map_err(|_| self.error("address displacement out of range".into()))?;
                return Ok(Address::reg(base, disp));
            }
        }
        let name = self.module.symbol_name(g).to_string();
        // As llc decides: a symbol that cannot be preempted is reached
        // directly; a preemptible one (not dso_local in a PIC or PIE module)
        // through the GOT. Without a "PIC Level" every definition is
        // direct, and declarations still use the GOT (gcc links PIE).
        let pic = matches!(
            self.module.module_flag("PIC Level"),
            Some(ir::MdOperand::Value(Constant::Int { value, .. })) if *value != 0
        );
        let (dso_local, linkage, attrs, defined) = match g {
            GlobalRef::Var(id) => {
                let global = self.module.global(id);
                let defined = global.initializer.is_some() && global.linkage != ir::Linkage::Common;
                (global.dso_local, global.linkage, &global.attrs, defined)
            }
            GlobalRef::Func(id) => {
                let func = self.module.function(id);
                (
                    func.dso_local,
                    func.linkage,
                    &func.attrs,
                    !func.is_declaration(),
                )
            }
        };
        let hidden = matches!(attrs.visibility.as_deref(), Some("hidden" | "protected"));
        let local = dso_local || linkage.is_local() || hidden || (!pic && defined);
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
    pub(super) fn const_address(&mut self, c: &Constant) -> Result<Address, Diagnostic> {
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
    pub(super) fn address(&mut self, v: &Value) -> Result<Address, Diagnostic> {
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

    /// `index * stride` (the index sign-extended from `bits`) in a
    /// register, for a stride no addressing mode scales by: one `imul` per
    /// MIR block and index register, shared by the block's GEPs into one
    /// array of structs (`opt[pos].len`, `opt[pos].off`), as LLVM's CSE
    /// shares it. Within a block an index register holds one value (SSA;
    /// phi copies come after every address of the block but a terminator
    /// compare's, which reads the index's value before them).
    fn scaled_index(&mut self, index: Reg, bits: u32, stride: u64) -> Result<Reg, Diagnostic> {
        if self.scaled_indices.0 != self.current {
            self.scaled_indices = (self.current, Vec::new());
        }
        let key = (index, bits, stride);
        if let Some(&(_, scaled)) = self.scaled_indices.1.iter().find(|(k, _)| *k == key) {
            return Ok(scaled);
        }
        let imm = i32::try_from(stride)
            .map_err(|_| self.error("getelementptr stride too large".into()))?;
        let r = self.extend(index, bits, Width::W64, true);
        let scaled = self.vreg(Width::W64);
        self.emit(K::ImulImm {
            width: Width::W64,
            dst: scaled,
            src: Rm::Reg(r),
            imm,
        });
        self.scaled_indices.1.push((key, scaled));
        Ok(scaled)
    }

    /// The address a GEP computes, as a memory operand.
    pub(super) fn gep_address(&mut self, id: InstId) -> Result<Address, Diagnostic> {
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
                    let (r, scale) = if matches!(stride, 1 | 2 | 4 | 8) {
                        (self.extend(r, bits, Width::W64, true), stride)
                    } else {
                        (self.scaled_index(r, bits, stride)?, 1)
                    };
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
}
