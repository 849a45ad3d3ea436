//! The normal form of a location expression: what reading back the
//! writer's lowering of it gives.
//!
//! In: a [`Location`] and the [`WriteOptions`] it is written under.
//! Out: the location as `read` raises the writer's DWARF for it.
//!
//! This restates the writer's documented lowering (write/ops.rs) piece by
//! piece, and what `read` makes of each DWARF operation:
//! - a piece that is one argument (with or without `StackValue`): a
//!   register is `DW_OP_regN` (the stack value dropped; read as a 64-bit
//!   unsigned register), a frame slot `DW_OP_fbreg`, a constant a generic
//!   constant and `DW_OP_stack_value`;
//! - otherwise, under gdb tuning, a piece ending in `StackValue` that reads
//!   a register is typed: registers keep their width (rounded up to bytes,
//!   as base types have a byte size) and signedness, constants take the
//!   type of the value they meet (read back in that width and signedness),
//!   `PlusUconst` on a typed value is a typed constant and `Plus`, loads are
//!   typed, and a binary operation on operands of different types converts
//!   the top one to the other's type (`Convert`; 64-bit unsigned for the
//!   generic type);
//! - otherwise (lldb, memory locations) registers are `DW_OP_bregN 0`
//!   (64-bit unsigned) and constants generic;
//! - an fp register in a typed piece is read as its bits (an unsigned
//!   register of its width); a piece that is not typed and reads one is
//!   written empty;
//! - a comparison converts its top operand as a binary operation does and
//!   leaves a generic value; a piece that is not typed and compares is
//!   written empty;
//! - a constant reads back as `Constu`, or `Consts` when negative; an
//!   8-byte load as `Deref`;
//! - arguments are numbered in order of first use, identical ones shared.
//!
//! A location the writer refuses (an `Arg` without its argument, an
//! operation on an empty stack) is left as it is, so the comparison shows
//! the write error instead.

use crate::model::{Location, LocationArg, Op};
use crate::write::{DebuggerTune, WriteOptions};

/// The type of a value on the DWARF stack, as the writer tracks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StackType {
    Generic,
    Typed { bits: u16, signed: bool },
}

/// One raised operation, its argument (if any) by value.
enum Raised {
    Op(Op),
    Arg(LocationArg),
}

/// The normal form of `location` written under `options`.
pub(crate) fn normal_location(location: &Location, options: &WriteOptions) -> Location {
    let valid = location.ops.iter().all(|op| match *op {
        Op::Arg(n) => (n as usize) < location.args.len(),
        _ => true,
    });
    if !valid {
        return location.clone();
    }
    let mut raised = Vec::new();
    for piece in location
        .ops
        .split_inclusive(|op| matches!(op, Op::Piece(_)))
    {
        let (ops, piece_op) = match piece.split_last() {
            Some((&Op::Piece(size), ops)) => (ops, Some(size)),
            _ => (piece, None),
        };
        let mut lowering = Lowering {
            args: &location.args,
            tune: options.debugger_tune,
            raised: &mut raised,
            stack: Vec::new(),
            default_type: StackType::Generic,
            next_converts: false,
        };
        if lowering.piece(ops).is_none() {
            return location.clone();
        }
        if let Some(size) = piece_op {
            raised.push(Raised::Op(Op::Piece(size)));
        }
    }
    number(raised)
}

/// Numbers the arguments in order of first use, sharing identical ones.
fn number(raised: Vec<Raised>) -> Location {
    let mut location = Location {
        args: Vec::new(),
        ops: Vec::with_capacity(raised.len()),
    };
    for item in raised {
        let op = match item {
            Raised::Op(op) => op,
            Raised::Arg(arg) => {
                let index = match location.args.iter().position(|a| *a == arg) {
                    Some(index) => index,
                    None => {
                        location.args.push(arg);
                        location.args.len() - 1
                    }
                };
                Op::Arg(index as u32)
            }
        };
        location.ops.push(op);
    }
    location
}

/// A generic constant as read back.
fn constant_op(value: i64) -> Op {
    if value < 0 {
        Op::Consts(value)
    } else {
        Op::Constu(value as u64)
    }
}

/// The `Convert` read back from converting to `ty` (64-bit unsigned for the
/// generic type).
fn convert_to(ty: StackType) -> Op {
    match ty {
        StackType::Generic => Op::Convert {
            bits: 64,
            signed: false,
        },
        StackType::Typed { bits, signed } => Op::Convert {
            bits: stored_bits(bits),
            signed,
        },
    }
}

/// Width in bits of a base type of `bits` bits, as its byte size gives it.
fn stored_bits(bits: u16) -> u16 {
    bits.div_ceil(8) * 8
}

struct Lowering<'a> {
    args: &'a [LocationArg],
    tune: DebuggerTune,
    raised: &'a mut Vec<Raised>,
    stack: Vec<StackType>,
    default_type: StackType,
    /// Whether the operation being lowered is followed by a convert (the
    /// writer then leaves a constant generic for that convert to type).
    next_converts: bool,
}

impl Lowering<'_> {
    fn piece(&mut self, ops: &[Op]) -> Option<()> {
        let stack_value = ops.last() == Some(&Op::StackValue);
        if let [Op::Arg(index)] | [Op::Arg(index), Op::StackValue] = *ops {
            match self.args[index as usize] {
                LocationArg::Register { register, .. }
                | LocationArg::FloatRegister { register, .. } => {
                    self.raised.push(Raised::Arg(LocationArg::Register {
                        register,
                        bits: 64,
                        signed: false,
                    }))
                }
                LocationArg::FrameSlot(offset) => {
                    self.raised
                        .push(Raised::Arg(LocationArg::FrameSlot(offset)));
                    if stack_value {
                        self.raised.push(Raised::Op(Op::StackValue));
                    }
                }
                LocationArg::Constant(value) => {
                    self.raised.push(Raised::Op(constant_op(value)));
                    self.raised.push(Raised::Op(Op::StackValue));
                }
                arg @ LocationArg::EntryValue { .. } => {
                    self.raised.push(Raised::Arg(arg));
                    self.raised.push(Raised::Op(Op::StackValue));
                }
            }
            return Some(());
        }
        let first_register = ops.iter().find_map(|op| match *op {
            Op::Arg(index) => match self.args[index as usize] {
                LocationArg::Register { bits, signed, .. } => {
                    Some(StackType::Typed { bits, signed })
                }
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
        let compares = ops.iter().any(|op| matches!(op, Op::Compare(_)));
        if (reads_float_register || compares) && !self.typed() {
            return Some(());
        }
        for (i, op) in ops.iter().enumerate() {
            self.next_converts = matches!(ops.get(i + 1), Some(Op::Convert { .. }));
            self.op(*op)?;
        }
        Some(())
    }

    fn typed(&self) -> bool {
        self.default_type != StackType::Generic
    }

    fn emit(&mut self, op: Op) {
        self.raised.push(Raised::Op(op));
    }

    /// A constant: generic, and under gdb converted at once to the type of
    /// the value it meets when that is typed, unless a convert follows.
    fn constant(&mut self, value: i64, unsigned: bool) {
        let ty = if self.next_converts {
            StackType::Generic
        } else {
            self.stack.last().copied().unwrap_or(self.default_type)
        };
        self.emit(if unsigned {
            Op::Constu(value as u64)
        } else {
            constant_op(value)
        });
        match ty {
            StackType::Typed { bits, signed } if self.tune == DebuggerTune::Gdb => {
                self.emit(Op::Convert {
                    bits: stored_bits(bits),
                    signed,
                });
                self.stack.push(ty);
            }
            _ => self.stack.push(StackType::Generic),
        }
    }

    fn op(&mut self, op: Op) -> Option<()> {
        match op {
            Op::Arg(index) => match self.args[index as usize] {
                LocationArg::Register {
                    register,
                    bits,
                    signed,
                } => {
                    if self.typed() {
                        self.raised.push(Raised::Arg(LocationArg::Register {
                            register,
                            bits: stored_bits(bits),
                            signed,
                        }));
                        self.stack.push(StackType::Typed { bits, signed });
                    } else {
                        self.raised.push(Raised::Arg(LocationArg::Register {
                            register,
                            bits: 64,
                            signed: false,
                        }));
                        self.stack.push(StackType::Generic);
                    }
                }
                LocationArg::FloatRegister { register, bits } => {
                    self.raised.push(Raised::Arg(LocationArg::Register {
                        register,
                        bits: stored_bits(bits),
                        signed: false,
                    }));
                    self.stack.push(StackType::Typed {
                        bits,
                        signed: false,
                    });
                }
                LocationArg::FrameSlot(offset) => {
                    self.raised
                        .push(Raised::Arg(LocationArg::FrameSlot(offset)));
                    self.stack.push(StackType::Generic);
                }
                LocationArg::Constant(value) => self.constant(value, false),
                arg @ LocationArg::EntryValue { .. } => {
                    self.raised.push(Raised::Arg(arg));
                    self.stack.push(StackType::Generic);
                }
            },
            Op::Constu(value) => self.constant(value as i64, true),
            Op::Consts(value) => self.constant(value, false),
            Op::PlusUconst(value) => {
                let top = *self.stack.last()?;
                if top == StackType::Generic || self.tune == DebuggerTune::Lldb {
                    self.emit(Op::PlusUconst(value));
                } else {
                    self.constant(value as i64, true);
                    self.binary(Op::Plus)?;
                }
            }
            Op::Plus
            | Op::Minus
            | Op::Mul
            | Op::Div
            | Op::Mod
            | Op::And
            | Op::Or
            | Op::Xor
            | Op::Shl
            | Op::Shr
            | Op::Shra => self.binary(op)?,
            Op::Compare(_) => {
                let top = self.stack.pop()?;
                let below = self.stack.pop()?;
                if top != below {
                    self.emit(convert_to(below));
                }
                self.emit(op);
                self.stack.push(StackType::Generic);
            }
            Op::Neg | Op::Not => {
                self.stack.last()?;
                self.emit(op);
            }
            Op::Deref => self.load(8)?,
            Op::DerefSize(size) => self.load(size)?,
            Op::StackValue => self.emit(Op::StackValue),
            Op::Convert { bits, signed } => {
                self.stack.pop()?;
                self.emit(Op::Convert {
                    bits: stored_bits(bits),
                    signed,
                });
                self.stack.push(StackType::Typed { bits, signed });
            }
            Op::Piece(_) => return None,
        }
        Some(())
    }

    fn binary(&mut self, op: Op) -> Option<()> {
        let top = self.stack.pop()?;
        let below = *self.stack.last()?;
        if top != below && self.tune == DebuggerTune::Gdb {
            self.emit(convert_to(below));
        }
        self.emit(op);
        Some(())
    }

    /// A load: generic, and in typed mode converted at once to a base type
    /// of the loaded width.
    fn load(&mut self, size: u8) -> Option<()> {
        self.stack.pop()?;
        self.emit(if size == 8 {
            Op::Deref
        } else {
            Op::DerefSize(size)
        });
        if self.typed() {
            let signed = matches!(self.default_type, StackType::Typed { signed: true, .. });
            let bits = u16::from(size) * 8;
            self.emit(Op::Convert {
                bits: stored_bits(bits),
                signed,
            });
            self.stack.push(StackType::Typed { bits, signed });
        } else {
            self.stack.push(StackType::Generic);
        }
        Some(())
    }
}
