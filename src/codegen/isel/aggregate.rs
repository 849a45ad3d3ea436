//! Values that live in more than one register: first-class aggregates
//! (structs and arrays of scalars, nested to any depth) and integers of 65
//! to 128 bits.
//!
//! In: `insertvalue`, `extractvalue`, and aggregate-typed `select`, `phi`,
//! `load`, `store`, `freeze`, call results, arguments and returns. Out:
//! copies, loads and stores over the value's *leaves*.
//!
//! Rule: a multi-register value is flattened, in memory order, into its
//! scalar leaves (integers up to 64 bits, pointers, floats, doubles), an
//! `iN` of 65 to 128 bits being two leaves, the low 64 bits first and then
//! an `i(N-64)`, an `x86_fp80` two leaves too (see [`super::x87`]): an
//! `i64` significand and an `i16` sign and exponent; each leaf is one
//! virtual register of its class. Every instruction producing such a value
//! gets its leaf registers before selection starts (so phi copies on any
//! edge name them), kept in `Selector::aggregates`; parameters keep theirs
//! in `Selector::arg_leaves`. An index path of `extractvalue` or
//! `insertvalue` names a contiguous run of leaves. A vector member of 4, 8
//! or 16 bytes (`<2 x float>`, as clang passes two floats of a struct in
//! one SSE eightbyte) is one leaf too, held whole in one xmm vector
//! register. Aggregates of more than [`MAX_LEAVES`] leaves, or holding
//! other types, are errors naming the type.

use super::*;

/// The most leaves an aggregate kept in registers may have.
const MAX_LEAVES: usize = 64;

/// The bytes of a vector held in one xmm register: at most 16 bytes of
/// integer, pointer, float or double lanes (not `i1`); `None` for any other
/// type.
pub(super) fn one_register_vector_bytes(ty: &Type) -> Option<u32> {
    let Type::Vector { len, elem } = ty else {
        return None;
    };
    let lane = match &**elem {
        Type::Int(bits @ (8 | 16 | 32 | 64)) => bits / 8,
        Type::Ptr => 8,
        other => fp::fp_size(other)?.bits() / 8,
    };
    len.checked_mul(lane).filter(|&bytes| bytes <= 16)
}

/// The bytes of a vector that may be one leaf of an aggregate (or go to
/// the stack as an argument): one xmm register of 4, 8 or 16 bytes, moved
/// whole by `movd`/`movq`/`movdqu`; `None` for any other type.
pub(super) fn vector_leaf_bytes(ty: &Type) -> Option<u8> {
    one_register_vector_bytes(ty)
        .filter(|bytes| matches!(bytes, 4 | 8 | 16))
        .map(|bytes| bytes as u8)
}

/// One scalar of a flattened value: its type and byte offset in memory.
#[derive(Clone, Debug)]
pub(super) struct Leaf {
    pub(super) ty: Type,
    pub(super) offset: u64,
}

impl Selector<'_> {
    /// The leaves of a multi-register type (`None` for a scalar type or
    /// one that cannot be flattened).
    pub(super) fn leaves_of_type(&self, ty: &Type) -> Option<Vec<Leaf>> {
        if self.class_of_type(ty).is_some() || matches!(ty, Type::Vector { .. }) {
            return None;
        }
        let mut out = Vec::new();
        self.flatten(ty, 0, &mut out).then_some(out)
    }

    /// Whether values of `ty` live in several registers.
    pub(super) fn is_multi_register(&self, ty: &Type) -> bool {
        self.leaves_of_type(ty).is_some()
    }

    fn flatten(&self, ty: &Type, offset: u64, out: &mut Vec<Leaf>) -> bool {
        if out.len() > MAX_LEAVES {
            return false;
        }
        match ty {
            Type::Int(bits @ 65..=128) => {
                // The high leaf is as wide as what is left, so a load or
                // store moves the type's store size (9 bytes for `i72`).
                for (half, ty) in [Type::Int(64), Type::Int(bits - 64)]
                    .into_iter()
                    .enumerate()
                {
                    out.push(Leaf {
                        ty,
                        offset: offset + 8 * half as u64,
                    });
                }
                true
            }
            Type::Float(ir::FloatKind::X86Fp80) => {
                out.extend(x87::fp80_leaves(offset));
                true
            }
            Type::Struct { .. } | Type::Named(_) => {
                let Some((fields, _)) = self.module.struct_fields(ty) else {
                    return false;
                };
                fields.iter().enumerate().all(|(i, field)| {
                    let at = self.module.field_offset(ty, i).unwrap_or(0);
                    self.flatten(field, offset + at, out)
                })
            }
            Type::Array { len, elem } => {
                let size = self.module.size_of(elem);
                *len as usize <= MAX_LEAVES
                    && (0..*len).all(|i| self.flatten(elem, offset + i * size, out))
            }
            _ if self.class_of_type(ty).is_some() || vector_leaf_bytes(ty).is_some() => {
                out.push(Leaf {
                    ty: ty.clone(),
                    offset,
                });
                true
            }
            _ => false,
        }
    }

    /// Whether a leaf of type `ty` travels in SSE registers (a float, a
    /// double or a vector leaf) rather than general-purpose ones.
    pub(super) fn is_sse_leaf(&self, ty: &Type) -> bool {
        fp::fp_size(ty).is_some() || vector_leaf_bytes(ty).is_some()
    }

    /// The SSE size a leaf is moved with as one argument (a float or a
    /// double; a 4- or 8-byte vector leaf as its bits), `None` for an
    /// integer leaf; a 16-byte vector leaf is an error (as an argument it
    /// would take 16 aligned stack bytes, which aggregates' leaves never do).
    pub(super) fn leaf_sse_size(&self, ty: &Type) -> Result<Option<mir::FpSize>, Diagnostic> {
        match vector_leaf_bytes(ty) {
            Some(4) => Ok(Some(mir::FpSize::F32)),
            Some(8) => Ok(Some(mir::FpSize::F64)),
            Some(_) => Err(self.error(format!(
                "unsupported aggregate argument with a member of type {}",
                type_name(self.module, ty)
            ))),
            None => self.fp_size_of_type(ty),
        }
    }

    /// A new virtual register for one leaf.
    fn leaf_reg(&mut self, ty: &Type) -> Reg {
        if vector_leaf_bytes(ty).is_some() {
            return self.mir.new_vector_vreg();
        }
        let (class, width) = self
            .class_of_type(ty)
            .unwrap_or((mir::RegClass::General, Width::W64));
        self.mir.new_vreg_of(class, width)
    }

    /// New registers for the leaves of `ty`.
    pub(super) fn new_leaf_regs(&mut self, ty: &Type) -> Vec<Reg> {
        let leaves = self.leaves_of_type(ty).unwrap_or_default();
        leaves.iter().map(|l| self.leaf_reg(&l.ty)).collect()
    }

    /// Gives every multi-register instruction result its leaf registers.
    pub(super) fn allocate_leaves(&mut self) {
        for i in 0..self.f.insts.len() {
            let ty = &self.f.insts[i].ty;
            if self.values[i].is_none() && self.is_multi_register(ty) {
                let regs = self.new_leaf_regs(ty);
                self.aggregates.insert(i as u32, regs);
            }
        }
    }

    /// The leaf registers of instruction `id`'s result.
    pub(super) fn result_leaves(&self, id: InstId) -> Result<Vec<Reg>, Diagnostic> {
        self.aggregates.get(&id.0).cloned().ok_or_else(|| {
            self.error(format!(
                "unsupported type {} in code generation",
                type_name(self.module, &self.f.inst(id).ty)
            ))
        })
    }

    /// Copies `regs` into the leaves of instruction `id`'s result.
    pub(super) fn define_leaves(&mut self, id: InstId, regs: &[Reg]) -> Result<(), Diagnostic> {
        let dsts = self.result_leaves(id)?;
        for (&dst, &src) in dsts.iter().zip(regs) {
            if dst != src {
                self.emit(K::Copy { dst, src });
            }
        }
        Ok(())
    }

    /// The leaf registers of a multi-register value (constants are
    /// materialised).
    pub(super) fn leaves(&mut self, v: &Value) -> Result<Vec<Reg>, Diagnostic> {
        match v {
            Value::Inst(id) => self.result_leaves(*id),
            Value::Arg(n) => self
                .arg_leaves
                .get(n)
                .cloned()
                .ok_or_else(|| self.error("unsupported aggregate argument".into())),
            Value::Const(c) => self.const_leaves(c),
        }
    }

    /// The leaves of a value of any type: one register for a scalar.
    pub(super) fn leaves_or_scalar(&mut self, v: &Value) -> Result<Vec<Reg>, Diagnostic> {
        let ty = self.f.value_type(v);
        if self.is_multi_register(&ty) {
            self.leaves(v)
        } else if vector_leaf_bytes(&ty).is_some() {
            self.parts(v)
        } else {
            Ok(vec![self.reg(v)?])
        }
    }

    fn const_leaves(&mut self, c: &Constant) -> Result<Vec<Reg>, Diagnostic> {
        match c {
            Constant::Int {
                bits: 65..=128,
                value,
            } => {
                let mut regs = Vec::with_capacity(2);
                for half in [*value as i64, (*value >> 64) as i64] {
                    let dst = self.vreg(Width::W64);
                    self.emit(K::MovImm {
                        dst,
                        imm: half,
                        width: Width::W64,
                    });
                    regs.push(dst);
                }
                Ok(regs)
            }
            Constant::Float {
                kind: ir::FloatKind::X86Fp80,
                bits,
            } => {
                let low = self.const_reg(&Constant::int(64, i128::from(*bits as u64)))?;
                let high = self.const_reg(&Constant::int(16, i128::from((*bits >> 64) as u16)))?;
                Ok(vec![low, high])
            }
            Constant::Zero(ty) | Constant::Undef(ty) | Constant::Poison(ty) => {
                let leaves = self.leaves_of_type(ty).unwrap_or_default();
                let mut regs = Vec::with_capacity(leaves.len());
                for leaf in leaves {
                    let zero = Constant::Zero(leaf.ty.clone());
                    regs.push(match vector_leaf_bytes(&leaf.ty) {
                        Some(_) => self.parts(&Value::Const(zero))?[0],
                        None => self.const_reg(&zero)?,
                    });
                }
                Ok(regs)
            }
            Constant::Struct { fields: elems, .. } | Constant::Array { elems, .. } => {
                let mut regs = Vec::new();
                for e in elems {
                    if self.is_multi_register(&e.ty()) {
                        regs.extend(self.const_leaves(e)?);
                    } else if vector_leaf_bytes(&e.ty()).is_some() {
                        regs.extend(self.parts(&Value::Const(e.clone()))?);
                    } else {
                        regs.push(self.const_reg(e)?);
                    }
                }
                Ok(regs)
            }
            Constant::Bytes(bytes) => bytes
                .iter()
                .map(|&b| self.const_reg(&Constant::int(8, i128::from(b))))
                .collect(),
            other => Err(self.error(format!(
                "unsupported aggregate constant {} in code generation",
                type_name(self.module, &other.ty())
            ))),
        }
    }

    /// The number of leaves of `ty` (1 for a scalar).
    fn leaf_count(&self, ty: &Type) -> usize {
        self.leaves_of_type(ty).map_or(1, |l| l.len())
    }

    /// The run of leaves (start, count) an index path names in `ty`, and
    /// the type there.
    fn leaf_range(&self, ty: &Type, indices: &[u32]) -> Result<(usize, usize, Type), Diagnostic> {
        let mut start = 0;
        let mut ty = ty.clone();
        for &index in indices {
            let members: Vec<Type> = match &ty {
                Type::Array { len, elem } => vec![(**elem).clone(); *len as usize],
                _ => match self.module.struct_fields(&ty) {
                    Some((fields, _)) => fields.to_vec(),
                    None => Vec::new(),
                },
            };
            let Some(member) = members.get(index as usize) else {
                return Err(self.error("aggregate index out of range".into()));
            };
            start += members[..index as usize]
                .iter()
                .map(|t| self.leaf_count(t))
                .sum::<usize>();
            ty = member.clone();
        }
        Ok((start, self.leaf_count(&ty), ty))
    }

    /// `extractvalue agg, i, j...`: copies of the leaves the path names.
    pub(super) fn lower_extract_value(
        &mut self,
        id: InstId,
        aggregate: &Value,
        indices: &[u32],
    ) -> Result<(), Diagnostic> {
        let members = self.leaves(aggregate)?;
        let (start, count, ty) = self.leaf_range(&self.f.value_type(aggregate), indices)?;
        let part = members
            .get(start..start + count)
            .ok_or_else(|| self.error("aggregate index out of range".into()))?
            .to_vec();
        if self.is_multi_register(&ty) {
            return self.define_leaves(id, &part);
        }
        let dst = self.dst(id)?;
        self.emit(K::Copy { dst, src: part[0] });
        Ok(())
    }

    /// `insertvalue agg, v, i, j...`: the leaves of `agg` with the run the
    /// path names replaced by `v`'s.
    pub(super) fn lower_insert_value(
        &mut self,
        id: InstId,
        aggregate: &Value,
        elem: &Value,
        indices: &[u32],
    ) -> Result<(), Diagnostic> {
        let mut members = self.leaves(aggregate)?;
        let (start, count, _) = self.leaf_range(&self.f.value_type(aggregate), indices)?;
        let new = self.leaves_or_scalar(elem)?;
        if new.len() != count || start + count > members.len() {
            return Err(self.error("insertvalue of a mismatched member".into()));
        }
        members.splice(start..start + count, new);
        self.define_leaves(id, &members)
    }

    /// `select c, a, b` of a multi-register type: one cmov per leaf (xmm
    /// leaves go through a general-purpose register).
    pub(super) fn lower_aggregate_select(
        &mut self,
        id: InstId,
        cond: &Value,
        if_true: &Value,
        if_false: &Value,
    ) -> Result<(), Diagnostic> {
        let t = self.leaves(if_true)?;
        let f = self.leaves(if_false)?;
        let dsts = self.result_leaves(id)?;
        // (general-purpose result, general-purpose true value, xmm result)
        let mut work = Vec::with_capacity(dsts.len());
        let leaves = self.leaves_of_type(&self.f.inst(id).ty).unwrap_or_default();
        if let Some(wide) = leaves
            .iter()
            .find(|l| vector_leaf_bytes(&l.ty).is_some_and(|bytes| bytes > 8))
        {
            return Err(self.error(format!(
                "unsupported 'select' of an aggregate with a member of type {}",
                type_name(self.module, &wide.ty)
            )));
        }
        for ((&dst, &tv), &fv) in dsts.iter().zip(&t).zip(&f) {
            if self.mir.class_of(dst) == mir::RegClass::Xmm {
                let g = self.vreg(Width::W64);
                self.emit(K::MovFromXmm {
                    dst: g,
                    src: fv,
                    width: Width::W64,
                });
                let gt = self.vreg(Width::W64);
                self.emit(K::MovFromXmm {
                    dst: gt,
                    src: tv,
                    width: Width::W64,
                });
                work.push((g, gt, Some(dst)));
            } else {
                let g = self.vreg(self.width_of(dst));
                self.emit(K::Copy { dst: g, src: fv });
                work.push((g, tv, None));
            }
        }
        let cc = self.condition(cond)?;
        for &(g, tv, _) in &work {
            let width = self.width_of(g);
            self.emit(K::Cmov {
                cond: cc,
                width,
                dst: g,
                src: Rm::Reg(tv),
            });
        }
        for (&(g, _, xmm), &dst) in work.iter().zip(&dsts) {
            match xmm {
                Some(x) => self.emit(K::MovToXmm {
                    dst: x,
                    src: Rm::Reg(g),
                    width: Width::W64,
                }),
                None => self.emit(K::Copy { dst, src: g }),
            }
        }
        Ok(())
    }

    /// Loads each leaf from its offset.
    pub(super) fn lower_aggregate_load(
        &mut self,
        id: InstId,
        ptr: &Value,
    ) -> Result<(), Diagnostic> {
        let ty = self.f.inst(id).ty.clone();
        let leaves = self.leaves_of_type(&ty).unwrap_or_default();
        let dsts = self.result_leaves(id)?;
        let base = self.address(ptr)?;
        for (leaf, &dst) in leaves.iter().zip(&dsts) {
            let mut addr = base.clone();
            addr.disp += leaf.offset as i32;
            self.load_leaf(dst, &leaf.ty, addr)?;
        }
        Ok(())
    }

    /// Stores each leaf at its offset.
    pub(super) fn lower_aggregate_store(
        &mut self,
        value: &Value,
        ptr: &Value,
    ) -> Result<(), Diagnostic> {
        let ty = self.f.value_type(value);
        let leaves = self.leaves_of_type(&ty).unwrap_or_default();
        let srcs = self.leaves(value)?;
        let base = self.address(ptr)?;
        for (leaf, &src) in leaves.iter().zip(&srcs) {
            let mut addr = base.clone();
            addr.disp += leaf.offset as i32;
            self.store_leaf(src, &leaf.ty, addr)?;
        }
        Ok(())
    }

    /// Loads one leaf of type `ty` from `addr` into `dst`.
    pub(super) fn load_leaf(
        &mut self,
        dst: Reg,
        ty: &Type,
        addr: Address,
    ) -> Result<(), Diagnostic> {
        if let Some(bytes) = vector_leaf_bytes(ty) {
            self.emit(K::VecLoad { dst, addr, bytes });
            return Ok(());
        }
        if let Some(size) = self.fp_size_of_type(ty)? {
            self.emit(K::FpLoad { dst, addr, size });
            return Ok(());
        }
        let bits = self.bits_of_type(ty)?;
        self.load_int(dst, bits, addr);
        Ok(())
    }

    /// Stores one leaf of type `ty` from `src` to `addr`.
    pub(super) fn store_leaf(
        &mut self,
        src: Reg,
        ty: &Type,
        addr: Address,
    ) -> Result<(), Diagnostic> {
        if let Some(bytes) = vector_leaf_bytes(ty) {
            self.emit(K::VecStore { src, addr, bytes });
            return Ok(());
        }
        if let Some(size) = self.fp_size_of_type(ty)? {
            self.emit(K::FpStore { src, addr, size });
            return Ok(());
        }
        let bits = self.bits_of_type(ty)?;
        self.store_int(src, bits, addr);
        Ok(())
    }

    /// `freeze` of a multi-register value: copies of its leaves.
    pub(super) fn lower_aggregate_freeze(
        &mut self,
        id: InstId,
        value: &Value,
    ) -> Result<(), Diagnostic> {
        let srcs = self.leaves(value)?;
        self.define_leaves(id, &srcs)
    }

    /// Selects the instructions this module, [`super::wide`],
    /// [`super::varargs`] and the return half of [`super::calls`] own;
    /// `false` when `id` is none of them.
    pub(super) fn lower_multi_register(&mut self, id: InstId) -> Result<bool, Diagnostic> {
        let inst = self.f.inst(id);
        match &inst.kind {
            InstKind::Ret { value } => return self.lower_abi_ret(value.as_ref()),
            InstKind::VaArg { list } => {
                self.lower_va_arg(id, list)?;
                return Ok(true);
            }
            _ => {}
        }
        if self.lower_wide(id)? {
            return Ok(true);
        }
        let multi = self.is_multi_register(&inst.ty);
        match &inst.kind {
            InstKind::Select {
                cond,
                if_true,
                if_false,
            } if multi => self.lower_aggregate_select(id, cond, if_true, if_false)?,
            InstKind::Load {
                atomic: None, ptr, ..
            } if multi => self.lower_aggregate_load(id, ptr)?,
            InstKind::Store {
                atomic: None,
                value,
                ptr,
                ..
            } if self.is_multi_register(&self.f.value_type(value)) => {
                self.lower_aggregate_store(value, ptr)?
            }
            InstKind::Freeze { value } if multi => self.lower_aggregate_freeze(id, value)?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// A debug value of a whole `i128` held in a register pair, or of an
    /// `x86_fp80` (whole, or the 80-bit fragment clang describes a `long
    /// double` with) in its two leaves: one `DbgValue` per leaf, each a
    /// fragment (so DWARF gets `DW_OP_piece`s). `false` for any other
    /// record.
    pub(super) fn lower_split_record(&mut self, record: &ir::DebugRecord) -> bool {
        let [location] = record.locations.as_slice() else {
            return false;
        };
        let ops = &self.module.debug.expr(record.expr).ops;
        let (base, pieces) = match self.f.value_type(location) {
            Type::Int(128) if *ops == [ir::ExprOp::Arg(0)] => (0, [64, 64]),
            Type::Float(ir::FloatKind::X86Fp80) => {
                let base = match ops.as_slice() {
                    [ir::ExprOp::Arg(0)] => 0,
                    [ir::ExprOp::Arg(0), ir::ExprOp::Fragment { offset, size: 80 }]
                    | [ir::ExprOp::Fragment { offset, size: 80 }] => *offset,
                    _ => return false,
                };
                // A `long double` variable (16 bytes) gets its padding
                // from the sign and exponent's register too: described
                // whole, debuggers print it (gdb shows a value with
                // unavailable bytes as `<optimized out>`).
                let size = crate::opt::debug_update::variable_size_bits(
                    &self.module.debug,
                    record.variable,
                );
                let high = if base == 0 && size == Some(128) {
                    64
                } else {
                    16
                };
                (base, [64, high])
            }
            _ => return false,
        };
        if record.kind != RecordKind::Value {
            return false;
        }
        let reg =
            |regs: Option<&Vec<Reg>>| regs.map(|r| r.iter().map(|&r| DbgOperand::Reg(r)).collect());
        let operands: Option<Vec<DbgOperand>> = match location {
            Value::Inst(id) => reg(self.aggregates.get(&id.0)),
            Value::Arg(n) => reg(self.arg_leaves.get(n)),
            // An x86_fp80 constant's two parts, as LLVM describes fp
            // constants (their bits, DW_OP_stack_value).
            Value::Const(Constant::Float { bits, .. }) if pieces[0] == 64 => Some(vec![
                DbgOperand::Imm(*bits as u64 as i64),
                DbgOperand::Imm(i64::from((*bits >> 64) as u16)),
            ]),
            Value::Const(_) => None,
        };
        let inlined_at = self.module.debug.location(record.loc).inlined_at;
        let loc = self.loc;
        self.loc = mir_loc(Some(record.loc));
        let mut offset = base;
        for (n, bits) in pieces.into_iter().enumerate() {
            let expr = self.debug.intern_expr(DebugExpr {
                ops: vec![Op::Arg(0)],
                args: vec![ArgType {
                    bits: bits as u16,
                    signed: false,
                    float: false,
                }],
            });
            let variable = self.debug.intern_variable(VariableKey {
                variable: record.variable,
                inlined_at,
                fragment: Some((offset, bits)),
            });
            offset += bits;
            let operand = operands.as_ref().map_or(DbgOperand::NoReg, |o| o[n]);
            self.emit(K::DbgValue(DbgValue {
                variable,
                operands: DbgOperands::one(operand),
                expr,
                indirect: false,
                moved: false,
            }));
        }
        self.loc = loc;
        true
    }

    /// A declare of the variable living in the `sret` memory: a memory
    /// location whose address is read from the slot keeping the pointer
    /// (`DW_OP_fbreg N, DW_OP_deref`), valid in the whole function.
    /// `false` for any other record.
    pub(super) fn lower_sret_declare(&mut self, record: &ir::DebugRecord) -> bool {
        let Some((n, slot)) = self.sret_slot else {
            return false;
        };
        if record.kind != RecordKind::Declare
            || record.locations != [Value::Arg(n)]
            || self.module.debug.expr(record.expr).ops != [ir::ExprOp::Arg(0)]
        {
            return false;
        }
        let inlined_at = self.module.debug.location(record.loc).inlined_at;
        let variable = self.debug.intern_variable(VariableKey {
            variable: record.variable,
            inlined_at,
            fragment: None,
        });
        let expr = self.debug.intern_expr(DebugExpr {
            ops: vec![Op::Arg(0), Op::Deref],
            args: vec![ArgType {
                bits: 64,
                signed: false,
                float: false,
            }],
        });
        let loc = self.loc;
        self.loc = mir_loc(Some(record.loc));
        self.emit(K::DbgValue(DbgValue {
            variable,
            operands: DbgOperands::one(DbgOperand::StackSlot(slot)),
            expr,
            indirect: true,
            moved: false,
        }));
        self.loc = loc;
        true
    }
}
