//! Debug records to `DbgValue`s: each record's locations become operands
//! (registers, constants, stack slots, salvaged folded addresses) and its
//! expression a [`DebugExpr`] in the function's [`DebugTable`].
//!
//! In: IR debug records at their positions. Out: `DbgValue` instructions
//! that never influence code selection.

use super::*;

impl Selector<'_> {
    /// A debug operand for a value, with operations that finish describing
    /// it (salvaged folded address arithmetic), or `None` if it has no
    /// location here.
    pub(super) fn debug_operand(&mut self, v: &Value) -> (DbgOperand, Vec<Op>) {
        match v {
            Value::Arg(n) => match self.byval_homes.get(n) {
                Some(&disp) => (DbgOperand::IncomingArg(disp as i32), Vec::new()),
                // Passed on the stack: its slot holds it all through the
                // function, where the register it is loaded into may not.
                None if self.stack_arg_homes.contains_key(n) => {
                    let (disp, width) = self.stack_arg_homes[n];
                    (DbgOperand::IncomingValue(disp as i32, width), Vec::new())
                }
                None if self.arg_leaves.contains_key(n) => (DbgOperand::NoReg, Vec::new()),
                None => (DbgOperand::Reg(self.args[*n as usize]), Vec::new()),
            },
            Value::Const(Constant::Int { value, .. }) => {
                (DbgOperand::Imm(*value as i64), Vec::new())
            }
            Value::Const(Constant::Null) => (DbgOperand::Imm(0), Vec::new()),
            // A float's or double's bits, as LLVM describes an fp constant
            // (DW_OP_constu bits, DW_OP_stack_value).
            Value::Const(c @ Constant::Float { .. }) => {
                match fp::fp_size(&c.ty()).and_then(|size| self.fp_const_bits(c, size)) {
                    Some(bits) => (DbgOperand::Imm(bits as i64), Vec::new()),
                    None => (DbgOperand::NoReg, Vec::new()),
                }
            }
            Value::Const(_) => (DbgOperand::NoReg, Vec::new()),
            Value::Inst(id) => match self.lowering[id.0 as usize] {
                Lowering::Normal => match self.values[id.0 as usize] {
                    Some(r) => (DbgOperand::Reg(r), Vec::new()),
                    None => (DbgOperand::NoReg, Vec::new()),
                },
                Lowering::Slot(slot) => (DbgOperand::StackSlot(slot), Vec::new()),
                Lowering::Absorbed => self.salvage_shift(*id),
                Lowering::FusedCompare
                | Lowering::BranchLogic
                | Lowering::FoldedLoad
                | Lowering::InPlace => (DbgOperand::NoReg, Vec::new()),
                Lowering::FoldedAddress => self.salvage_gep(*id),
            },
        }
    }

    /// Describes a folded GEP with a constant offset from a describable base.
    pub(super) fn salvage_gep(&mut self, id: InstId) -> (DbgOperand, Vec<Op>) {
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

    /// Describes an absorbed `shl x, k` (a scaled `lea`'s index, see
    /// [`absorb`]) as `x` shifted by the constant `k`; any other absorbed
    /// instruction has no location.
    fn salvage_shift(&mut self, id: InstId) -> (DbgOperand, Vec<Op>) {
        let InstKind::Binary {
            op: BinOp::Shl,
            lhs,
            rhs,
            ..
        } = &self.f.inst(id).kind
        else {
            return (DbgOperand::NoReg, Vec::new());
        };
        let Some(k) = self.const_int(rhs).filter(|k| (1..=3).contains(k)) else {
            return (DbgOperand::NoReg, Vec::new());
        };
        let (operand, mut ops) = self.debug_operand(lhs);
        if operand != DbgOperand::NoReg {
            ops.extend([Op::Constu(k as u64), Op::Shl]);
        }
        (operand, ops)
    }

    pub(super) fn lower_record(&mut self, record: &ir::DebugRecord) -> Result<(), Diagnostic> {
        if record.kind == RecordKind::Label {
            return Ok(());
        }
        if self.lower_split_record(record) || self.lower_sret_declare(record) {
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
            let fp = fp::fp_size(&self.f.value_type(v));
            let bits = match fp {
                Some(mir::FpSize::F32) => 32,
                Some(mir::FpSize::F64) => 64,
                None => self.bits_of(v).unwrap_or(64).max(1) as u16,
            };
            let float = fp.is_some();
            arg_types.push(ArgType {
                bits,
                signed,
                float,
            });
            operands.push(operand);
            salvage.push(ops);
        }
        let translated = debug::translate_expr(&expr.ops, &salvage, &arg_types);
        let (ops, fragment, defined) = match translated {
            Some(t) => (t.ops, t.fragment, true),
            None => (Vec::new(), expr.fragment(), false),
        };
        let memory_home = matches!(
            operands.as_slice(),
            [DbgOperand::StackSlot(_) | DbgOperand::IncomingArg(_)]
        );
        if !defined || (declare && !memory_home) {
            operands.iter_mut().for_each(|o| *o = DbgOperand::NoReg);
        }
        // A value record that reads a variable wider than a register from
        // a stack home (`DW_OP_deref` of its address, as assignment
        // tracking's lowering states "in memory") is a memory location
        // there, for the whole function as a declare's (a computed value of
        // it would hold only 8 bytes); narrower ones stay computed values
        // with their ranges.
        let bits = fragment.map(|(_, size)| size).or_else(|| {
            crate::opt::debug_update::variable_size_bits(&self.module.debug, record.variable)
        });
        let in_memory = !declare
            && memory_home
            && bits.is_some_and(|bits| bits > 64)
            && matches!(
                ops.as_slice(),
                [Op::Arg(0), Op::Deref] | [Op::Arg(0), Op::PlusUconst(_), Op::Deref]
            );
        let ops = if in_memory {
            ops[..ops.len() - 1].to_vec()
        } else {
            ops
        };
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
            operands: operands.into(),
            expr,
            indirect: declare || in_memory,
            moved: false,
        }));
        self.loc = loc;
        Ok(())
    }
}
