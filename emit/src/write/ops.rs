//! Expression lowering: a model [`Location`] (with `DW_OP_LLVM_arg`
//! placeholders) to a DWARF expression (ARCHITECTURE.md decision 5).
//!
//! In: a location, the debugger tuning, and a source of DW_TAG_base_type
//! DIEs (created on demand by the caller as children of the unit root).
//! Out: a `gimli::write::Expression`, or a message saying what is wrong.
//!
//! The location is lowered one piece at a time (`Op::Piece` ends a piece):
//! - exactly `[Arg(i)]` or `[Arg(i), StackValue]` over a register is a
//!   register location `DW_OP_regN`, and `[Arg(i), PlusUconst(0)]` the
//!   memory at its address, `DW_OP_bregN 0`; over a frame slot, `DW_OP_fbreg off`
//!   (a memory location; the frame base is the CFA), plus `DW_OP_stack_value`
//!   when the address itself is the value; over a constant, the constant and
//!   `DW_OP_stack_value`;
//! - otherwise, for gdb, a computed value (`StackValue`) that reads a
//!   register is kept **entirely typed**: registers are pushed with
//!   `DW_OP_regval_type` over a base type of the argument's width and
//!   signedness; a constant is pushed generic and at once converted
//!   (`DW_OP_convert`) to the type of the value it meets, or to the type of
//!   the convert that follows it; a load is a plain
//!   `DW_OP_deref`/`DW_OP_deref_size` at once converted to a base type of
//!   the loaded width; and a binary operation whose operands differ in type
//!   converts the top one to the other's type. Typed arithmetic wraps in
//!   the value's own width, so a 32-bit `a - b` is negative when it should
//!   be and a 32-bit logical shift right shifts in zeros at bit 31, which
//!   converting to the 64-bit generic type would get wrong; and gdb never
//!   sees typed and generic operands mixed ("Incompatible types on DWARF
//!   stack"). Push-then-convert rather than `DW_OP_const_type` and
//!   `DW_OP_deref_type`: llvm-dwarfdump 14 cannot decode those two and
//!   reports the expression invalid. A piece that reads no register (frame
//!   slots, constants) stays generic: nothing says its width or signedness.
//! - for lldb (which evaluates none of the typed operations), and for
//!   memory locations (address arithmetic is pointer-sized anyway),
//!   registers are pushed with `DW_OP_bregN 0` and constants are generic.
//!
//! - an fp register (`LocationArg::FloatRegister`) in a computed value is
//!   `DW_OP_regval_type xmmN <unsigned base type of its width>`: its bits,
//!   which the operations that follow work on, as LLVM's do (a float base
//!   type would need `DW_OP_reinterpret` to reach the bits, which
//!   llvm-dwarfdump-19 cannot decode, and `DW_OP_convert` would convert the
//!   number instead); where typed operations cannot be used (lldb, memory
//!   locations) such a piece is left empty (unavailable).
//!
//! - a comparison (`Op::Compare`) is written only in typed mode, its
//!   operands of one type (the top one converted as for a binary
//!   operation) and its result generic, as gdb pushes it; elsewhere its
//!   piece is unavailable: a generic comparison is signed over 64 bits,
//!   which a narrower value in a register does not fill.
//!
//! `Op::Convert` becomes `DW_OP_convert` to a base type of that width and
//! signedness; `Op::Piece(n)` becomes `DW_OP_piece n`; every other
//! operation maps one to one.

use gimli::write::{Expression, UnitEntryId};
use gimli::Register;

use super::DebuggerTune;
use crate::model::{CallValue, Comparison, Location, LocationArg, Op};

/// Gives the DIE of a DW_TAG_base_type with this width in bits and
/// signedness, creating it the first time it is asked for.
pub trait BaseTypes {
    /// The base type DIE for `bits` and `signed`.
    fn base_type(&mut self, bits: u16, signed: bool) -> UnitEntryId;
}

/// The type of a value on the DWARF stack while lowering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StackType {
    /// The generic (address-sized, untyped) type.
    Generic,
    /// A base type of this width and signedness.
    Typed { bits: u16, signed: bool },
}

/// Lowers `location` to a DWARF expression tuned for `tune`.
pub fn lower(
    location: &Location,
    tune: DebuggerTune,
    base_types: &mut dyn BaseTypes,
) -> Result<Expression, String> {
    for op in &location.ops {
        if let Op::Arg(index) = *op {
            if index as usize >= location.args.len() {
                return Err(format!(
                    "DW_OP_LLVM_arg {index} but the location has {} argument(s)",
                    location.args.len()
                ));
            }
        }
    }
    let mut expression = Expression::new();
    for chunk in location
        .ops
        .split_inclusive(|op| matches!(op, Op::Piece(_)))
    {
        let (piece, size) = match chunk.split_last() {
            Some((Op::Piece(size), piece)) => (piece, Some(*size)),
            _ => (chunk, None),
        };
        let mut lowering = Lowering {
            args: &location.args,
            tune,
            base_types,
            expression: &mut expression,
            stack: Vec::new(),
            default_type: StackType::Generic,
            next_converts: false,
        };
        lowering.piece(piece)?;
        if let Some(size) = size {
            expression.op_piece(size);
        }
    }
    Ok(expression)
}

/// Pushes `DW_OP_entry_value(DW_OP_regN)`: the register's value on entry.
fn push_entry_value(expression: &mut Expression, register: u16) {
    let mut inner = Expression::new();
    inner.op_reg(Register(register));
    expression.op_entry_value(inner);
}

/// The DW_AT_call_value expression of a call-site parameter: a DWARF
/// expression whose result is the value (no `DW_OP_stack_value`: the
/// debugger evaluates it as a value).
pub fn call_value(value: &CallValue) -> Expression {
    let mut expression = Expression::new();
    match *value {
        CallValue::Constant(n) if n < 32 => {
            expression.op(gimli::DwOp(gimli::DW_OP_lit0.0 + n as u8))
        }
        CallValue::Constant(n) => expression.op_constu(n),
        CallValue::Register { register, bits } => {
            expression.op_breg(Register(register), 0);
            if bits == 32 {
                expression.op_constu(0xffff_ffff);
                expression.op(gimli::DW_OP_and);
            }
        }
        CallValue::EntryValue { register } => push_entry_value(&mut expression, register),
    }
    expression
}

/// The state of lowering one piece.
struct Lowering<'a> {
    args: &'a [LocationArg],
    tune: DebuggerTune,
    base_types: &'a mut dyn BaseTypes,
    expression: &'a mut Expression,
    /// Types of the values on the DWARF stack.
    stack: Vec<StackType>,
    /// In typed mode, the type of the first register argument: the type of
    /// constants pushed on an empty stack and of loads.
    default_type: StackType,
    /// Whether the operation being lowered is followed by a convert: a
    /// constant then stays generic, and the convert gives it its own type
    /// (an `i64` constant xor-ed with a 16-bit register's value widened to
    /// 64 bits is not first cut to 16).
    next_converts: bool,
}

impl Lowering<'_> {
    fn piece(&mut self, ops: &[Op]) -> Result<(), String> {
        if ops.is_empty() {
            return Ok(()); // an empty piece: that part is unavailable
        }
        if let Some(position) = ops.iter().position(|op| *op == Op::StackValue) {
            if position + 1 != ops.len() {
                return Err("DW_OP_stack_value is not the last operation of its piece".into());
            }
        }
        let stack_value = ops.last() == Some(&Op::StackValue);
        if let [Op::Arg(index), Op::PlusUconst(0)] = *ops {
            if let LocationArg::Register { register, .. } = self.args[index as usize] {
                // The memory at the register's address (the form the
                // reader gives `DW_OP_bregN 0`).
                self.expression.op_breg(Register(register), 0);
                return Ok(());
            }
        }
        if let [Op::Arg(index)] | [Op::Arg(index), Op::StackValue] = *ops {
            self.single_argument(self.args[index as usize], stack_value);
            return Ok(());
        }
        let first_register = ops.iter().find_map(|op| match *op {
            Op::Arg(index) => match self.args[index as usize] {
                LocationArg::Register { bits, signed, .. } => {
                    Some(StackType::Typed { bits, signed })
                }
                // Reinterpreted as its bits (see `argument`).
                LocationArg::FloatRegister { bits, .. } => Some(StackType::Typed {
                    bits,
                    signed: false,
                }),
                _ => None,
            },
            _ => None,
        });
        if let (DebuggerTune::Gdb, true, Some(first)) = (self.tune, stack_value, first_register) {
            self.default_type = first;
        }
        let reads_float_register = ops.iter().any(|op| {
            matches!(op, Op::Arg(index)
                if matches!(self.args[*index as usize], LocationArg::FloatRegister { .. }))
        });
        if reads_float_register && !self.typed() {
            // Only typed operations read an fp register's bits (lldb
            // evaluates none, and a memory location has no use for them):
            // that part is unavailable rather than wrong.
            return Ok(());
        }
        let compares = ops.iter().any(|op| matches!(op, Op::Compare(_)));
        if compares && !self.typed() {
            // A generic comparison is signed over the whole 64-bit
            // register, whatever the width of the value in it: only typed
            // operands compare right.
            return Ok(());
        }
        for (i, op) in ops.iter().enumerate() {
            self.next_converts = matches!(ops.get(i + 1), Some(Op::Convert { .. }));
            self.op(*op)?;
        }
        if self.stack.is_empty() {
            return Err("the expression leaves no value on the stack".into());
        }
        Ok(())
    }

    /// A piece that is just one argument: a register or memory location,
    /// or an implicit value.
    fn single_argument(&mut self, arg: LocationArg, stack_value: bool) {
        match arg {
            LocationArg::Register { register, .. }
            | LocationArg::FloatRegister { register, .. } => {
                self.expression.op_reg(Register(register))
            }
            LocationArg::FrameSlot(offset) => {
                self.expression.op_fbreg(offset);
                if stack_value {
                    self.expression.op(gimli::DW_OP_stack_value);
                }
            }
            LocationArg::Constant(value) => {
                push_generic_constant(self.expression, value);
                self.expression.op(gimli::DW_OP_stack_value);
            }
            LocationArg::EntryValue { register } => {
                push_entry_value(self.expression, register);
                self.expression.op(gimli::DW_OP_stack_value);
            }
        }
    }

    fn typed(&self) -> bool {
        self.default_type != StackType::Generic
    }

    fn base(&mut self, ty: StackType) -> Option<UnitEntryId> {
        match ty {
            StackType::Generic => None,
            StackType::Typed { bits, signed } => Some(self.base_types.base_type(bits, signed)),
        }
    }

    fn pop(&mut self, op: Op) -> Result<StackType, String> {
        self.stack
            .pop()
            .ok_or_else(|| format!("{op:?} with too few values on the stack"))
    }

    /// Pushes a constant in the type of the value it will meet; `unsigned`
    /// says how to read `value` when the constant is generic.
    fn constant(&mut self, value: i64, unsigned: bool) {
        let ty = match self.stack.last() {
            _ if self.next_converts => StackType::Generic,
            Some(&ty) => ty,
            None => self.default_type,
        };
        match ty {
            StackType::Typed { .. } if self.tune == DebuggerTune::Gdb => {
                self.generic_constant(value, unsigned);
                let base = self.base(ty);
                self.expression.op_convert(base);
                self.stack.push(ty);
            }
            _ => {
                self.generic_constant(value, unsigned);
                self.stack.push(StackType::Generic);
            }
        }
    }

    fn generic_constant(&mut self, value: i64, unsigned: bool) {
        if unsigned {
            self.expression.op_constu(value as u64);
        } else {
            push_generic_constant(self.expression, value);
        }
    }

    fn op(&mut self, op: Op) -> Result<(), String> {
        match op {
            Op::Arg(index) => self.argument(self.args[index as usize]),
            Op::Constu(value) => self.constant(value as i64, true),
            Op::Consts(value) => self.constant(value, false),
            Op::PlusUconst(value) => {
                let top = *self
                    .stack
                    .last()
                    .ok_or("DW_OP_plus_uconst on an empty stack")?;
                if top == StackType::Generic || self.tune == DebuggerTune::Lldb {
                    self.expression.op_plus_uconst(value);
                } else {
                    self.constant(value as i64, true);
                    self.binary(gimli::DW_OP_plus, op)?;
                }
            }
            Op::Plus => self.binary(gimli::DW_OP_plus, op)?,
            Op::Minus => self.binary(gimli::DW_OP_minus, op)?,
            Op::Mul => self.binary(gimli::DW_OP_mul, op)?,
            Op::Div => self.binary(gimli::DW_OP_div, op)?,
            Op::Mod => self.binary(gimli::DW_OP_mod, op)?,
            Op::And => self.binary(gimli::DW_OP_and, op)?,
            Op::Or => self.binary(gimli::DW_OP_or, op)?,
            Op::Xor => self.binary(gimli::DW_OP_xor, op)?,
            Op::Shl => self.binary(gimli::DW_OP_shl, op)?,
            Op::Shr => self.binary(gimli::DW_OP_shr, op)?,
            Op::Shra => self.binary(gimli::DW_OP_shra, op)?,
            Op::Compare(comparison) => self.compare(comparison, op)?,
            Op::Neg => self.unary(gimli::DW_OP_neg, op)?,
            Op::Not => self.unary(gimli::DW_OP_not, op)?,
            Op::Deref => self.load(8, op)?,
            Op::DerefSize(size) => self.load(size, op)?,
            Op::StackValue => self.expression.op(gimli::DW_OP_stack_value),
            Op::Convert { bits, signed } => {
                self.pop(op)?;
                let ty = StackType::Typed { bits, signed };
                let base = self.base(ty);
                self.expression.op_convert(base);
                self.stack.push(ty);
            }
            Op::Piece(_) => unreachable!("pieces are split off before lowering"),
        }
        Ok(())
    }

    fn argument(&mut self, arg: LocationArg) {
        match arg {
            LocationArg::Register {
                register,
                bits,
                signed,
            } => {
                if self.typed() {
                    let ty = StackType::Typed { bits, signed };
                    let base = self.base_types.base_type(bits, signed);
                    self.expression.op_regval_type(Register(register), base);
                    self.stack.push(ty);
                } else {
                    self.expression.op_breg(Register(register), 0);
                    self.stack.push(StackType::Generic);
                }
            }
            LocationArg::FloatRegister { register, bits } => {
                // Typed mode only (see `piece`): the value's bits.
                let ty = StackType::Typed {
                    bits,
                    signed: false,
                };
                let base = self.base_types.base_type(bits, false);
                self.expression.op_regval_type(Register(register), base);
                self.stack.push(ty);
            }
            LocationArg::FrameSlot(offset) => {
                self.expression.op_fbreg(offset);
                self.stack.push(StackType::Generic);
            }
            LocationArg::Constant(value) => self.constant(value, false),
            LocationArg::EntryValue { register } => {
                push_entry_value(self.expression, register);
                self.stack.push(StackType::Generic);
            }
        }
    }

    /// A binary operation: the top operand is converted to the type of the
    /// one below it when they differ; the result has that type.
    fn binary(&mut self, opcode: gimli::DwOp, op: Op) -> Result<(), String> {
        let top = self.pop(op)?;
        let below = *self
            .stack
            .last()
            .ok_or_else(|| format!("{op:?} with too few values on the stack"))?;
        if top != below && self.tune == DebuggerTune::Gdb {
            let base = self.base(below);
            self.expression.op_convert(base);
        }
        match gdb_shift_type(self.tune, opcode, below) {
            Some(shifted) => {
                // Both operands to the type gdb shifts in, the shift, and
                // the result back to the operands' type.
                let shifted_base = self.base(shifted);
                self.expression.op_convert(shifted_base);
                self.expression.op(gimli::DW_OP_swap);
                self.expression.op_convert(shifted_base);
                self.expression.op(gimli::DW_OP_swap);
                self.expression.op(opcode);
                let base = self.base(below);
                self.expression.op_convert(base);
            }
            None => self.expression.op(opcode),
        }
        Ok(())
    }

    /// A comparison: the top operand converted to the type of the one
    /// below it when they differ, as for a binary operation; the result is
    /// generic (gdb pushes it in its address type).
    fn compare(&mut self, comparison: Comparison, op: Op) -> Result<(), String> {
        let top = self.pop(op)?;
        let below = self.pop(op)?;
        if top != below {
            let base = self.base(below);
            self.expression.op_convert(base);
        }
        self.expression.op(comparison.opcode());
        self.stack.push(StackType::Generic);
        Ok(())
    }

    fn unary(&mut self, opcode: gimli::DwOp, op: Op) -> Result<(), String> {
        let top = self.pop(op)?;
        self.expression.op(opcode);
        self.stack.push(top);
        Ok(())
    }

    /// A load of `size` bytes: converted to a base type of that width (in
    /// the default type's signedness) in typed mode, generic otherwise.
    fn load(&mut self, size: u8, op: Op) -> Result<(), String> {
        self.pop(op)?;
        if op == Op::Deref {
            self.expression.op_deref();
        } else {
            self.expression.op_deref_size(size);
        }
        if self.typed() {
            let ty = StackType::Typed {
                bits: u16::from(size) * 8,
                signed: ty_signed(self.default_type),
            };
            let base = self.base(ty);
            self.expression.op_convert(base);
            self.stack.push(ty);
        } else {
            self.stack.push(StackType::Generic);
        }
        Ok(())
    }
}

/// The type a shift `opcode` over operands of type `ty` must be done in
/// for gdb, when not `ty` itself: gdb shifts right arithmetically
/// (`DW_OP_shra`) in a signed type and logically (`DW_OP_shr`) in an
/// unsigned one, and finds the other signedness of a type only when it is
/// 1, 2, 4 or 8 bytes wide (else "no signed variant found for type"). A
/// shift of a 24-bit unsigned value right arithmetically is therefore done
/// in the 24-bit signed type, which is the same shift.
fn gdb_shift_type(tune: DebuggerTune, opcode: gimli::DwOp, ty: StackType) -> Option<StackType> {
    let StackType::Typed { bits, signed } = ty else {
        return None;
    };
    let needs_signed = match opcode {
        gimli::DW_OP_shra => true,
        gimli::DW_OP_shr => false,
        _ => return None,
    };
    let gdb_has_the_other_signedness = matches!(bits.div_ceil(8), 1 | 2 | 4 | 8);
    (tune == DebuggerTune::Gdb && signed != needs_signed && !gdb_has_the_other_signedness)
        .then_some(StackType::Typed {
            bits,
            signed: needs_signed,
        })
}

fn ty_signed(ty: StackType) -> bool {
    matches!(ty, StackType::Typed { signed: true, .. })
}

/// `DW_OP_constu` for non-negative values, `DW_OP_consts` for negative ones.
fn push_generic_constant(expression: &mut Expression, value: i64) {
    if value >= 0 {
        expression.op_constu(value as u64);
    } else {
        expression.op_consts(value);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use gimli::write::{StringTable, Unit};
    use gimli::{DW_OP_minus, DW_OP_plus, DW_OP_shr, DW_OP_stack_value, Encoding, Format};

    use super::*;
    use crate::write::types::ExpressionBaseTypes;

    const EDI: LocationArg = LocationArg::Register {
        register: 5,
        bits: 32,
        signed: true,
    };
    const ESI: LocationArg = LocationArg::Register {
        register: 4,
        bits: 32,
        signed: true,
    };
    const RBX: LocationArg = LocationArg::Register {
        register: 3,
        bits: 64,
        signed: false,
    };

    /// Lowers `ops` over `args` and compares with what `expected` builds;
    /// both share one base-type cache, so equal types are equal DIE ids.
    fn check(
        args: &[LocationArg],
        ops: &[Op],
        tune: DebuggerTune,
        expected: impl FnOnce(&mut Expression, &mut dyn BaseTypes),
    ) {
        let encoding = Encoding {
            format: Format::Dwarf32,
            version: 5,
            address_size: 8,
        };
        let mut unit = Unit::new(encoding, gimli::write::LineProgram::none());
        let mut strings = StringTable::default();
        let mut made = HashMap::new();
        let mut base_types = ExpressionBaseTypes {
            unit: &mut unit,
            strings: &mut strings,
            made: &mut made,
        };
        let location = Location {
            args: args.to_vec(),
            ops: ops.to_vec(),
        };
        let lowered = lower(&location, tune, &mut base_types).unwrap();
        let mut expression = Expression::new();
        expected(&mut expression, &mut base_types);
        assert_eq!(lowered, expression);
    }

    #[test]
    fn a_lone_register_is_a_register_location_even_as_a_stack_value() {
        for ops in [&[Op::Arg(0)][..], &[Op::Arg(0), Op::StackValue]] {
            check(&[EDI], ops, DebuggerTune::Gdb, |e, _| e.op_reg(Register(5)));
        }
    }

    #[test]
    fn a_register_plus_nothing_is_the_memory_at_its_address() {
        for tune in [DebuggerTune::Gdb, DebuggerTune::Lldb] {
            check(&[RBX], &[Op::Arg(0), Op::PlusUconst(0)], tune, |e, _| {
                e.op_breg(Register(3), 0)
            });
        }
    }

    #[test]
    fn gdb_difference_of_registers_is_typed() {
        check(
            &[EDI, ESI],
            &[Op::Arg(0), Op::Arg(1), Op::Minus, Op::StackValue],
            DebuggerTune::Gdb,
            |e, types| {
                let int = types.base_type(32, true);
                e.op_regval_type(Register(5), int);
                e.op_regval_type(Register(4), int);
                e.op(DW_OP_minus);
                e.op(DW_OP_stack_value);
            },
        );
    }

    #[test]
    fn lldb_difference_of_registers_is_generic() {
        check(
            &[EDI, ESI],
            &[Op::Arg(0), Op::Arg(1), Op::Minus, Op::StackValue],
            DebuggerTune::Lldb,
            |e, _| {
                e.op_breg(Register(5), 0);
                e.op_breg(Register(4), 0);
                e.op(DW_OP_minus);
                e.op(DW_OP_stack_value);
            },
        );
    }

    #[test]
    fn gdb_compares_typed_values_and_the_result_is_generic() {
        // `(unsigned)d < 5` over an int in edi, kept as a bool.
        let ops = [
            Op::Arg(0),
            Op::Convert {
                bits: 32,
                signed: false,
            },
            Op::Constu(5),
            Op::Compare(Comparison::Lt),
            Op::Convert {
                bits: 8,
                signed: false,
            },
            Op::StackValue,
        ];
        check(&[EDI], &ops, DebuggerTune::Gdb, |e, types| {
            let int = types.base_type(32, true);
            let unsigned = types.base_type(32, false);
            let byte = types.base_type(8, false);
            e.op_regval_type(Register(5), int);
            e.op_convert(Some(unsigned));
            e.op_constu(5);
            e.op_convert(Some(unsigned));
            e.op(gimli::DW_OP_lt);
            e.op_convert(Some(byte));
            e.op(DW_OP_stack_value);
        });
        // lldb compares generic 64-bit values: unavailable rather than wrong.
        check(&[EDI], &ops, DebuggerTune::Lldb, |_, _| {});
    }

    /// `bits(f) + j` over a float in xmm0 (DWARF 17) and an int in edi.
    const XMM0_FLOAT: LocationArg = LocationArg::FloatRegister {
        register: 17,
        bits: 32,
    };

    #[test]
    fn gdb_reads_an_fp_register_in_a_computation_as_its_bits() {
        check(
            &[XMM0_FLOAT, EDI],
            &[Op::Arg(0), Op::Arg(1), Op::Plus, Op::StackValue],
            DebuggerTune::Gdb,
            |e, types| {
                let bits = types.base_type(32, false);
                e.op_regval_type(Register(17), bits);
                let int = types.base_type(32, true);
                e.op_regval_type(Register(5), int);
                e.op_convert(Some(bits));
                e.op(DW_OP_plus);
                e.op(DW_OP_stack_value);
            },
        );
        // Alone, it is a register location.
        check(&[XMM0_FLOAT], &[Op::Arg(0)], DebuggerTune::Gdb, |e, _| {
            e.op_reg(Register(17))
        });
    }

    #[test]
    fn lldb_leaves_a_computation_over_an_fp_register_unavailable() {
        check(
            &[XMM0_FLOAT, EDI],
            &[Op::Arg(0), Op::Arg(1), Op::Plus, Op::StackValue],
            DebuggerTune::Lldb,
            |_, _| {},
        );
    }

    #[test]
    fn gdb_constants_take_the_type_they_meet() {
        check(
            &[EDI],
            &[
                Op::Arg(0),
                Op::Constu(1),
                Op::Shr,
                Op::PlusUconst(7),
                Op::StackValue,
            ],
            DebuggerTune::Gdb,
            |e, types| {
                let int = types.base_type(32, true);
                e.op_regval_type(Register(5), int);
                e.op_constu(1);
                e.op_convert(Some(int));
                e.op(DW_OP_shr);
                e.op_constu(7);
                e.op_convert(Some(int));
                e.op(DW_OP_plus);
                e.op(DW_OP_stack_value);
            },
        );
    }

    /// `(x << 3) >>a 3` over an i24 in r9 (DWARF 8), from clang's
    /// salvage of a sign-extended bit-field: gdb shifts a 3-byte unsigned
    /// value arithmetically only once it is signed.
    #[test]
    fn gdb_shifts_an_odd_width_value_in_the_signedness_the_shift_needs() {
        let r9d_24 = LocationArg::Register {
            register: 8,
            bits: 24,
            signed: false,
        };
        check(
            &[r9d_24],
            &[Op::Arg(0), Op::Constu(3), Op::Shra, Op::StackValue],
            DebuggerTune::Gdb,
            |e, types| {
                let unsigned = types.base_type(24, false);
                let signed = types.base_type(24, true);
                e.op_regval_type(Register(8), unsigned);
                e.op_constu(3);
                e.op_convert(Some(unsigned));
                e.op_convert(Some(signed));
                e.op(gimli::DW_OP_swap);
                e.op_convert(Some(signed));
                e.op(gimli::DW_OP_swap);
                e.op(gimli::DW_OP_shra);
                e.op_convert(Some(unsigned));
                e.op(DW_OP_stack_value);
            },
        );
        // A 4-byte value is shifted as it is: gdb finds its other signedness.
        check(
            &[EDI],
            &[Op::Arg(0), Op::Constu(3), Op::Shr, Op::StackValue],
            DebuggerTune::Gdb,
            |e, types| {
                let int = types.base_type(32, true);
                e.op_regval_type(Register(5), int);
                e.op_constu(3);
                e.op_convert(Some(int));
                e.op(DW_OP_shr);
                e.op(DW_OP_stack_value);
            },
        );
    }

    #[test]
    fn gdb_operands_of_different_types_meet_in_the_lower_ones_type() {
        check(
            &[RBX, EDI],
            &[Op::Arg(0), Op::Arg(1), Op::Plus, Op::StackValue],
            DebuggerTune::Gdb,
            |e, types| {
                let long = types.base_type(64, false);
                let int = types.base_type(32, true);
                e.op_regval_type(Register(3), long);
                e.op_regval_type(Register(5), int);
                e.op_convert(Some(long));
                e.op(DW_OP_plus);
                e.op(DW_OP_stack_value);
            },
        );
    }

    #[test]
    fn gdb_memory_location_from_a_register_stays_generic() {
        check(
            &[RBX],
            &[Op::Arg(0), Op::PlusUconst(16)],
            DebuggerTune::Gdb,
            |e, _| {
                e.op_breg(Register(3), 0);
                e.op_plus_uconst(16);
            },
        );
    }

    #[test]
    fn frame_slots_and_constants() {
        let slot = [LocationArg::FrameSlot(-24)];
        check(&slot, &[Op::Arg(0)], DebuggerTune::Gdb, |e, _| {
            e.op_fbreg(-24)
        });
        check(
            &slot,
            &[Op::Arg(0), Op::StackValue],
            DebuggerTune::Gdb,
            |e, _| {
                e.op_fbreg(-24);
                e.op(DW_OP_stack_value);
            },
        );
        check(
            &[LocationArg::Constant(-7)],
            &[Op::Arg(0), Op::StackValue],
            DebuggerTune::Gdb,
            |e, _| {
                e.op_consts(-7);
                e.op(DW_OP_stack_value);
            },
        );
    }

    #[test]
    fn large_unsigned_constants_stay_unsigned() {
        check(
            &[LocationArg::FrameSlot(0)],
            &[Op::Arg(0), Op::Constu(u64::MAX), Op::Plus, Op::StackValue],
            DebuggerTune::Gdb,
            |e, _| {
                e.op_fbreg(0);
                e.op_constu(u64::MAX);
                e.op(DW_OP_plus);
                e.op(DW_OP_stack_value);
            },
        );
    }

    #[test]
    fn pieces_including_an_empty_one() {
        check(
            &[EDI, ESI],
            &[
                Op::Arg(0),
                Op::Piece(4),
                Op::Piece(2),
                Op::Arg(1),
                Op::Piece(4),
            ],
            DebuggerTune::Gdb,
            |e, _| {
                e.op_reg(Register(5));
                e.op_piece(4);
                e.op_piece(2);
                e.op_reg(Register(4));
                e.op_piece(4);
            },
        );
    }
}
