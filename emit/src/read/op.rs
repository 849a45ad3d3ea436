//! DWARF location expressions raised back into the model's [`Location`]
//! form, with `DW_OP_LLVM_arg` placeholders over [`LocationArg`]s.
//!
//! In: one expression, the unit's encoding, the frame base of the
//! enclosing subprogram, and a way to look up base-type DIEs.
//! Out: a [`Location`], or `None` when nothing of it fits the model.
//!
//! Promises: each operation that pushes a register or a frame address
//! becomes `Op::Arg(n)` over an argument (identical arguments are shared,
//! numbered in order of first use):
//! `DW_OP_regN`/`regx` and `DW_OP_bregN off` give a 64-bit unsigned
//! [`LocationArg::Register`] (`bregN` adds its offset with `plus_uconst` or
//! `constu; minus`, as LLVM writes offsets; a piece that is only
//! `DW_OP_bregN 0`, the memory at the register's address, is
//! `Arg, PlusUconst(0)` so that it differs from the register location
//! `DW_OP_regN`); `DW_OP_regval_type` gives the
//! register with its base type's width and signedness; `DW_OP_fbreg` under
//! a `DW_OP_call_frame_cfa` frame base gives [`LocationArg::FrameSlot`]
//! (under a register frame base, that register plus the offset);
//! `DW_OP_call_frame_cfa` gives `FrameSlot(0)`. Constants are `Constu`
//! (`Consts` when negative), typed ones (`DW_OP_const_type`) read in their
//! type's width and signedness; arithmetic, comparisons, `stack_value` and
//! `piece` map one to one; `deref`, `deref_size` and `deref_type` are `DerefSize`, or
//! `Deref` for 8 bytes; `DW_OP_convert` is `Convert` to its base type's
//! width and signedness (64-bit unsigned for the generic type). An
//! `DW_OP_entry_value(DW_OP_regN)` (or `regx`) is `EntryValue`. An
//! operation with no model form (`addr`, branches, other entry values...)
//! makes its piece empty (the part is unavailable), or the whole location
//! `None` when it has no pieces.

use gimli::{Encoding, Expression, Operation, UnitOffset};

use super::dwarf::Slice;
use crate::model::{Comparison, Location, LocationArg, Op};

/// What `DW_OP_fbreg` is relative to, from the subprogram's
/// `DW_AT_frame_base`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FrameBase {
    /// `DW_OP_call_frame_cfa`.
    Cfa,
    /// A register plus an offset (`DW_OP_regN` is offset 0).
    Register {
        /// DWARF register number.
        register: u16,
        /// Offset added to its value.
        offset: i64,
    },
    /// No frame base, or one the model cannot express.
    Unknown,
}

impl FrameBase {
    /// Reads a `DW_AT_frame_base` expression.
    pub fn from_expression(expression: Expression<Slice<'_>>, encoding: Encoding) -> FrameBase {
        let mut operations = expression.operations(encoding);
        let first = operations.next();
        let rest = operations.next();
        match (first, rest) {
            (Ok(Some(Operation::CallFrameCFA)), Ok(None)) => FrameBase::Cfa,
            (Ok(Some(Operation::Register { register })), Ok(None)) => FrameBase::Register {
                register: register.0,
                offset: 0,
            },
            (
                Ok(Some(Operation::RegisterOffset {
                    register,
                    offset,
                    base_type,
                })),
                Ok(None),
            ) if base_type.0 == 0 => FrameBase::Register {
                register: register.0,
                offset,
            },
            _ => FrameBase::Unknown,
        }
    }
}

/// The width in bits and signedness of a base-type DIE, for typed operations.
pub(crate) type BaseTypeLookup<'l> = &'l dyn Fn(UnitOffset) -> Option<(u16, bool)>;

/// Raises `expression` into the model's form (see the module comment).
pub(crate) fn raise(
    expression: Expression<Slice<'_>>,
    encoding: Encoding,
    frame_base: FrameBase,
    base_type: BaseTypeLookup<'_>,
) -> Option<Location> {
    let mut raiser = Raiser {
        location: Location {
            args: Vec::new(),
            ops: Vec::new(),
        },
        encoding,
        frame_base,
        base_type,
        memory_at_register: None,
    };
    let mut piece_start = (0, 0);
    let mut failed = false;
    let mut has_pieces = false;
    let mut operations = expression.operations(encoding);
    loop {
        let operation = match operations.next() {
            Ok(Some(operation)) => operation,
            Ok(None) => break,
            Err(_) => return None,
        };
        if let Operation::Piece {
            size_in_bits,
            bit_offset,
        } = operation
        {
            if bit_offset.is_some() || !size_in_bits.is_multiple_of(8) {
                return None;
            }
            if failed {
                raiser.location.args.truncate(piece_start.0);
                raiser.location.ops.truncate(piece_start.1);
                failed = false;
            }
            raiser.end_piece(piece_start.1);
            raiser.location.ops.push(Op::Piece(size_in_bits / 8));
            piece_start = (raiser.location.args.len(), raiser.location.ops.len());
            has_pieces = true;
        } else if !failed && raiser.operation(operation).is_none() {
            failed = true;
        }
    }
    if failed {
        if !has_pieces {
            return None;
        }
        raiser.location.args.truncate(piece_start.0);
        raiser.location.ops.truncate(piece_start.1);
    }
    raiser.end_piece(piece_start.1);
    (!raiser.location.ops.is_empty()).then_some(raiser.location)
}

struct Raiser<'l> {
    location: Location,
    encoding: Encoding,
    frame_base: FrameBase,
    base_type: BaseTypeLookup<'l>,
    /// Index in `ops` of the last `Arg` pushed by `DW_OP_bregN 0` (or an
    /// `fbreg` that amounts to it): a memory address, not a register.
    memory_at_register: Option<usize>,
}

impl Raiser<'_> {
    /// Closes the piece whose operations start at `start`: a piece that is
    /// only a `bregN 0` address gets its explicit `PlusUconst(0)`.
    fn end_piece(&mut self, start: usize) {
        let ops = &mut self.location.ops;
        if ops.len() == start + 1 && self.memory_at_register == Some(start) {
            ops.push(Op::PlusUconst(0));
        }
        self.memory_at_register = None;
    }

    /// Appends the model form of one operation; `None` when it has none.
    fn operation(&mut self, operation: Operation<Slice<'_>>) -> Option<()> {
        let op = match operation {
            Operation::Register { register } => {
                return self.push_register(register.0, 64, false, 0)
            }
            Operation::RegisterOffset {
                register,
                offset,
                base_type,
            } => {
                if base_type.0 == 0 {
                    self.memory_at_register = Some(self.location.ops.len());
                    return self.push_register(register.0, 64, false, offset);
                }
                let (bits, signed) = (self.base_type)(base_type)?;
                return self.push_register(register.0, bits, signed, offset);
            }
            Operation::FrameOffset { offset } => {
                return match self.frame_base {
                    FrameBase::Cfa => {
                        self.push_arg(LocationArg::FrameSlot(offset));
                        Some(())
                    }
                    FrameBase::Register {
                        register,
                        offset: base,
                    } => {
                        self.memory_at_register = Some(self.location.ops.len());
                        self.push_register(register, 64, false, base.checked_add(offset)?)
                    }
                    FrameBase::Unknown => None,
                }
            }
            Operation::EntryValue { expression } => {
                // Only the form writers use: the entry value of one register
                // (`DW_OP_regN` or `DW_OP_regx`).
                let mut inner = Expression(expression).operations(self.encoding);
                let register = match (inner.next(), inner.next()) {
                    (Ok(Some(Operation::Register { register })), Ok(None)) => register.0,
                    _ => return None,
                };
                self.push_arg(LocationArg::EntryValue { register });
                return Some(());
            }
            Operation::CallFrameCFA => {
                self.push_arg(LocationArg::FrameSlot(0));
                return Some(());
            }
            Operation::TypedLiteral { base_type, value } => {
                let (_, signed) = (self.base_type)(base_type)?;
                let bytes = value.slice();
                if bytes.is_empty() || bytes.len() > 8 {
                    return None;
                }
                let mut buffer = [0u8; 8];
                buffer[..bytes.len()].copy_from_slice(bytes);
                let shift = 64 - 8 * bytes.len() as u32;
                let raw = u64::from_le_bytes(buffer) << shift;
                if signed && (raw as i64) < 0 {
                    Op::Consts((raw as i64) >> shift)
                } else {
                    Op::Constu(raw >> shift)
                }
            }
            Operation::UnsignedConstant { value } => Op::Constu(value),
            Operation::SignedConstant { value } if value >= 0 => Op::Constu(value as u64),
            Operation::SignedConstant { value } => Op::Consts(value),
            Operation::PlusConstant { value } => Op::PlusUconst(value),
            Operation::Plus => Op::Plus,
            Operation::Minus => Op::Minus,
            Operation::Mul => Op::Mul,
            Operation::Div => Op::Div,
            Operation::Mod => Op::Mod,
            Operation::And => Op::And,
            Operation::Or => Op::Or,
            Operation::Xor => Op::Xor,
            Operation::Shl => Op::Shl,
            Operation::Shr => Op::Shr,
            Operation::Shra => Op::Shra,
            Operation::Neg => Op::Neg,
            Operation::Not => Op::Not,
            Operation::Eq => Op::Compare(Comparison::Eq),
            Operation::Ne => Op::Compare(Comparison::Ne),
            Operation::Lt => Op::Compare(Comparison::Lt),
            Operation::Gt => Op::Compare(Comparison::Gt),
            Operation::Le => Op::Compare(Comparison::Le),
            Operation::Ge => Op::Compare(Comparison::Ge),
            Operation::Deref {
                base_type,
                size,
                space: false,
            } => {
                if base_type.0 != 0 {
                    (self.base_type)(base_type)?;
                }
                if size == 8 {
                    Op::Deref
                } else {
                    Op::DerefSize(size)
                }
            }
            Operation::StackValue => Op::StackValue,
            Operation::Convert { base_type } => {
                let (bits, signed) = if base_type.0 == 0 {
                    (64, false)
                } else {
                    (self.base_type)(base_type)?
                };
                Op::Convert { bits, signed }
            }
            _ => return None,
        };
        self.location.ops.push(op);
        Some(())
    }

    /// Pushes a register argument, then its offset the way LLVM writes one.
    fn push_register(&mut self, register: u16, bits: u16, signed: bool, offset: i64) -> Option<()> {
        self.push_arg(LocationArg::Register {
            register,
            bits,
            signed,
        });
        match offset {
            0 => {}
            1.. => self.location.ops.push(Op::PlusUconst(offset as u64)),
            _ => {
                self.location.ops.push(Op::Constu(offset.unsigned_abs()));
                self.location.ops.push(Op::Minus);
            }
        }
        Some(())
    }

    /// Pushes `Op::Arg` over `arg`, sharing an identical earlier argument.
    fn push_arg(&mut self, arg: LocationArg) {
        let index = match self.location.args.iter().position(|a| *a == arg) {
            Some(index) => index,
            None => {
                self.location.args.push(arg);
                self.location.args.len() - 1
            }
        };
        self.location.ops.push(Op::Arg(index as u32));
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{expect, Expect};
    use gimli::{EndianSlice, Expression, Format, LittleEndian};

    use super::*;

    /// Base types of the test unit: 0x30 is a signed 32-bit int, 0x40 an
    /// unsigned 8-bit char; nothing else is a base type.
    fn base_type(offset: UnitOffset) -> Option<(u16, bool)> {
        match offset.0 {
            0x30 => Some((32, true)),
            0x40 => Some((8, false)),
            _ => None,
        }
    }

    fn check_with(bytes: &[u8], frame_base: FrameBase, expect: Expect) {
        let encoding = Encoding {
            format: Format::Dwarf32,
            version: 5,
            address_size: 8,
        };
        let expression = Expression(EndianSlice::new(bytes, LittleEndian));
        let got = raise(expression, encoding, frame_base, &base_type);
        expect.assert_eq(&format!("{got:?}"));
    }

    fn check(bytes: &[u8], expect: Expect) {
        check_with(bytes, FrameBase::Cfa, expect);
    }

    #[test]
    fn registers_and_register_addresses() {
        // DW_OP_reg5
        check(
            &[0x55],
            expect![[
                r#"Some(Location { args: [Register { register: 5, bits: 64, signed: false }], ops: [Arg(0)] })"#
            ]],
        );
        // DW_OP_breg7 8
        check(
            &[0x77, 0x08],
            expect![[
                r#"Some(Location { args: [Register { register: 7, bits: 64, signed: false }], ops: [Arg(0), PlusUconst(8)] })"#
            ]],
        );
        // DW_OP_breg7 -8
        check(
            &[0x77, 0x78],
            expect![[
                r#"Some(Location { args: [Register { register: 7, bits: 64, signed: false }], ops: [Arg(0), Constu(8), Minus] })"#
            ]],
        );
        // DW_OP_breg7 0: memory at rsp, not the register itself
        check(&[0x77, 0x00], expect!["Some(Location { args: [Register { register: 7, bits: 64, signed: false }], ops: [Arg(0), PlusUconst(0)] })"]);
        // DW_OP_breg7 0, DW_OP_breg6 0, DW_OP_plus, DW_OP_stack_value
        check(
            &[0x77, 0x00, 0x76, 0x00, 0x22, 0x9f],
            expect![[
                r#"Some(Location { args: [Register { register: 7, bits: 64, signed: false }, Register { register: 6, bits: 64, signed: false }], ops: [Arg(0), Arg(1), Plus, StackValue] })"#
            ]],
        );
        // the same register twice shares one argument
        check(
            &[0x75, 0x00, 0x75, 0x00, 0x22, 0x9f],
            expect![[
                r#"Some(Location { args: [Register { register: 5, bits: 64, signed: false }], ops: [Arg(0), Arg(0), Plus, StackValue] })"#
            ]],
        );
    }

    #[test]
    fn typed_operations_take_their_base_type() {
        // DW_OP_regval_type 3, <int>
        check(
            &[0xa5, 0x03, 0x30, 0x9f],
            expect![[
                r#"Some(Location { args: [Register { register: 3, bits: 32, signed: true }], ops: [Arg(0), StackValue] })"#
            ]],
        );
        // DW_OP_regval_type 3, <not a base type>
        check(&[0xa5, 0x03, 0x50, 0x9f], expect!["None"]);
        // DW_OP_const_type <int> 4 bytes -1
        check(
            &[0xa4, 0x30, 0x04, 0xff, 0xff, 0xff, 0xff, 0x9f],
            expect!["Some(Location { args: [], ops: [Consts(-1), StackValue] })"],
        );
        // DW_OP_const_type <unsigned char> 1 byte 0xff
        check(
            &[0xa4, 0x40, 0x01, 0xff, 0x9f],
            expect!["Some(Location { args: [], ops: [Constu(255), StackValue] })"],
        );
        // DW_OP_breg5 0, DW_OP_deref_type 4 <int>, DW_OP_stack_value
        check(
            &[0x75, 0x00, 0xa6, 0x04, 0x30, 0x9f],
            expect![[
                r#"Some(Location { args: [Register { register: 5, bits: 64, signed: false }], ops: [Arg(0), DerefSize(4), StackValue] })"#
            ]],
        );
        // DW_OP_breg5 0, DW_OP_deref_type 4 <not a base type>
        check(&[0x75, 0x00, 0xa6, 0x04, 0x50, 0x9f], expect!["None"]);
        // DW_OP_breg0 0, DW_OP_convert <int>, DW_OP_convert 0 (generic)
        check(
            &[0x70, 0x00, 0xa8, 0x30, 0xa8, 0x00, 0x9f],
            expect![[
                r#"Some(Location { args: [Register { register: 0, bits: 64, signed: false }], ops: [Arg(0), Convert { bits: 32, signed: true }, Convert { bits: 64, signed: false }, StackValue] })"#
            ]],
        );
    }

    #[test]
    fn frame_addresses_follow_the_frame_base() {
        // DW_OP_fbreg -16
        check(
            &[0x91, 0x70],
            expect![[r#"Some(Location { args: [FrameSlot(-16)], ops: [Arg(0)] })"#]],
        );
        check_with(
            &[0x91, 0x70],
            FrameBase::Register {
                register: 7,
                offset: 0,
            },
            expect![[
                r#"Some(Location { args: [Register { register: 7, bits: 64, signed: false }], ops: [Arg(0), Constu(16), Minus] })"#
            ]],
        );
        check_with(
            &[0x91, 0x10],
            FrameBase::Register {
                register: 6,
                offset: -16,
            },
            expect![[
                r#"Some(Location { args: [Register { register: 6, bits: 64, signed: false }], ops: [Arg(0), PlusUconst(0)] })"#
            ]],
        );
        check_with(&[0x91, 0x70], FrameBase::Unknown, expect!["None"]);
        // DW_OP_call_frame_cfa
        check(
            &[0x9c],
            expect![[r#"Some(Location { args: [FrameSlot(0)], ops: [Arg(0)] })"#]],
        );
    }

    #[test]
    fn generic_operations_map_one_to_one() {
        // DW_OP_consts 5, DW_OP_stack_value: a non-negative constant is Constu
        check(
            &[0x11, 0x05, 0x9f],
            expect!["Some(Location { args: [], ops: [Constu(5), StackValue] })"],
        );
        // DW_OP_lit3, DW_OP_consts -2, DW_OP_mul, DW_OP_stack_value
        check(
            &[0x33, 0x11, 0x7e, 0x1e, 0x9f],
            expect!["Some(Location { args: [], ops: [Constu(3), Consts(-2), Mul, StackValue] })"],
        );
        // DW_OP_breg5 0, DW_OP_deref_size 4, DW_OP_deref, DW_OP_plus_uconst 3
        check(
            &[0x75, 0x00, 0x94, 0x04, 0x06, 0x23, 0x03],
            expect![[
                r#"Some(Location { args: [Register { register: 5, bits: 64, signed: false }], ops: [Arg(0), DerefSize(4), Deref, PlusUconst(3)] })"#
            ]],
        );
        // and, or, xor, shl, shr, shra, neg, not, minus, div, mod
        check(&[0x30, 0x1a, 0x21, 0x27, 0x24, 0x25, 0x26, 0x1f, 0x20, 0x1c, 0x1b, 0x1d], expect!["Some(Location { args: [], ops: [Constu(0), And, Or, Xor, Shl, Shr, Shra, Neg, Not, Minus, Div, Mod] })"]);
    }

    #[test]
    fn operations_without_a_model_form() {
        // DW_OP_entry_value(DW_OP_reg5), DW_OP_stack_value
        check(
            &[0xa3, 0x01, 0x55, 0x9f],
            expect![
                "Some(Location { args: [EntryValue { register: 5 }], ops: [Arg(0), StackValue] })"
            ],
        );
        // DW_OP_reg5, DW_OP_piece 4, DW_OP_entry_value(DW_OP_reg4), DW_OP_stack_value, DW_OP_piece 4:
        // the second piece becomes empty
        check(
            &[0x55, 0x93, 0x04, 0xa3, 0x01, 0x54, 0x9f, 0x93, 0x04],
            expect!["Some(Location { args: [Register { register: 5, bits: 64, signed: false }, EntryValue { register: 4 }], ops: [Arg(0), Piece(4), Arg(1), StackValue, Piece(4)] })"],
        );
        // DW_OP_reg5, DW_OP_bit_piece 3 0
        check(&[0x55, 0x9d, 0x03, 0x00], expect!["None"]);
        // truncated: DW_OP_breg5 with no offset
        check(&[0x75], expect!["None"]);
    }
}
