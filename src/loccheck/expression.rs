//! What one location expression asks of the machine state over its range.
//!
//! In: a [`Location`] as the reader raises it (operations over
//! `DW_OP_LLVM_arg` placeholders, see `dwarfsmith_emit::read`) and the
//! size in bytes of the variable it describes. Out: [`Demands`]: the
//! registers whose bytes must keep their value over the range (and in
//! which role), the register+offset addresses the location loads a
//! pointer from (`DW_OP_bregN off, DW_OP_deref`), and the registers of its
//! entry values; and the expression printed as DWARF operations.
//!
//! Rule: a piece that is only `Arg(n)` over a register is a register
//! location (the variable's bytes are the register's low bytes); a piece
//! with `DW_OP_stack_value` (or a typed value from `DW_OP_convert`) is a
//! computed value; any other piece is a memory location, whose address is
//! a base register plus an offset, or computed from operands. Operands
//! of computed values and addresses are read in the bytes the operations
//! use (see `value_bytes`); a base is read whole.

use dwarfsmith_emit::model::{Location, LocationArg, Op};

use crate::x86::regs::PhysReg;

/// Why a location reads a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The variable (or a piece of it) is the register (`DW_OP_regN`).
    Register,
    /// An operand of a computed value (`DW_OP_bregN ..., DW_OP_stack_value`).
    Value,
    /// The base of a memory location whose address is one register plus
    /// an offset (`DW_OP_bregN`, `DW_OP_fbreg` under a register frame base).
    Base,
    /// An operand of a memory location's address computed from more
    /// (`DW_OP_breg4 RSI+0, DW_OP_constu 1, DW_OP_shl, DW_OP_breg6 RBP+0,
    /// DW_OP_plus`).
    Operand,
}

/// A register a location reads, and which of its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterDemand {
    /// The register.
    pub register: PhysReg,
    /// Bit `i` set: byte `i` of the register is read.
    pub bytes: u32,
    /// Why it is read.
    pub role: Role,
}

/// An address `register + offset` from which a memory location loads a
/// pointer (`DW_OP_bregN offset, DW_OP_deref`): the memory there must hold
/// an address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointerSlot {
    /// The base register.
    pub register: PhysReg,
    /// The offset added to it.
    pub offset: i64,
}

/// What a location needs of the machine over its range.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Demands {
    /// Registers that must hold their value.
    pub registers: Vec<RegisterDemand>,
    /// Memory that must hold a pointer.
    pub pointer_slots: Vec<PointerSlot>,
    /// DWARF numbers of the registers of `DW_OP_entry_value`s.
    pub entry_values: Vec<u16>,
}

/// The register a DWARF register number names (general-purpose 0-15, xmm
/// 17-32); `None` for any other.
pub fn register_of(dwarf: u16) -> Option<PhysReg> {
    (0..PhysReg::COUNT)
        .map(PhysReg::from_index)
        .find(|r| r.dwarf() == dwarf)
}

/// A mask of the low `bytes` bytes of `register` (its whole width when
/// `bytes` is unknown or larger).
fn low_bytes(register: PhysReg, bytes: Option<u64>) -> u32 {
    let width: u64 = if register.gpr().is_some() { 8 } else { 16 };
    let n = bytes.filter(|&b| b > 0).unwrap_or(width).min(width);
    ((1u64 << n) - 1) as u32
}

/// The demands of `location` for a variable of `size` bytes.
pub fn demands(location: &Location, size: Option<u64>) -> Demands {
    let mut out = Demands::default();
    let mut piece: Vec<Op> = Vec::new();
    for &op in &location.ops {
        if let Op::Piece(bytes) = op {
            demands_of_piece(location, &piece, Some(bytes), &mut out);
            piece.clear();
        } else {
            piece.push(op);
        }
    }
    if !piece.is_empty() {
        demands_of_piece(location, &piece, size, &mut out);
    }
    out.registers.dedup();
    out
}

fn demands_of_piece(location: &Location, ops: &[Op], size: Option<u64>, out: &mut Demands) {
    let arg = |n: u32| location.args.get(n as usize).copied();
    let register_arg = |n: u32| match arg(n) {
        Some(LocationArg::Register { register, bits, .. }) => {
            register_of(register).map(|r| (r, u64::from(bits).div_ceil(8)))
        }
        Some(LocationArg::FloatRegister { register, bits }) => {
            register_of(register).map(|r| (r, u64::from(bits).div_ceil(8)))
        }
        _ => None,
    };
    for op in ops {
        if let Op::Arg(n) = op {
            if let Some(LocationArg::EntryValue { register }) = arg(*n) {
                out.entry_values.push(register);
            }
        }
    }
    if let [Op::Arg(n)] = ops {
        if let Some((register, _)) = register_arg(*n) {
            out.registers.push(RegisterDemand {
                register,
                bytes: low_bytes(register, size),
                role: Role::Register,
            });
        }
        return;
    }
    // A typed value (after `DW_OP_convert`) is a value, not an address.
    let computed = ops
        .iter()
        .any(|op| matches!(op, Op::StackValue | Op::Convert { .. }));
    // `Arg(n) [offset] [Deref ...]`: an address in one register.
    let (offset, rest) = match ops.get(1..) {
        Some([Op::PlusUconst(k), rest @ ..]) => (*k as i64, rest),
        Some([Op::Consts(k), Op::Plus, rest @ ..]) => (*k, rest),
        Some([Op::Constu(k), Op::Minus, rest @ ..]) => (-(*k as i64), rest),
        Some(rest) => (0, rest),
        None => (0, &[][..]),
    };
    let based = match (ops.first(), rest.first()) {
        (Some(Op::Arg(n)), None | Some(Op::Deref | Op::DerefSize(_))) if !computed => {
            register_arg(*n).map(|(register, _)| (register, rest.first()))
        }
        _ => None,
    };
    if let Some((register, deref)) = based {
        out.registers.push(RegisterDemand {
            register,
            bytes: low_bytes(register, None),
            role: Role::Base,
        });
        if matches!(deref, Some(Op::Deref | Op::DerefSize(8))) {
            out.pointer_slots.push(PointerSlot { register, offset });
        }
        return;
    }
    for (at, op) in ops.iter().enumerate() {
        let Op::Arg(n) = op else { continue };
        let Some((register, width)) = register_arg(*n) else {
            continue;
        };
        let (read, role) = if computed {
            (value_bytes(ops, at, size), Role::Value)
        } else {
            (value_bytes(ops, at, None), Role::Operand)
        };
        out.registers.push(RegisterDemand {
            register,
            bytes: low_bytes(register, Some(read.min(width))),
            role,
        });
    }
}

/// How many low bytes of the operand pushed by `ops[at]` the computed
/// value of `size` bytes depends on: the operand cut by a mask
/// (`constu 0xffff, and`), a left shift (`constu 0x30, shl`) or a
/// conversion, or the value's own size when every operation carries only
/// upwards (addition, multiplication, bitwise operations, left shifts);
/// else all eight.
fn value_bytes(ops: &[Op], at: usize, size: Option<u64>) -> u64 {
    match ops.get(at + 1..) {
        Some([Op::Constu(mask), Op::And, ..])
            if mask.wrapping_add(1).is_power_of_two() && mask.count_ones() % 8 == 0 =>
        {
            return u64::from(mask.count_ones() / 8).max(1);
        }
        Some([Op::Constu(shift), Op::Shl, ..]) if shift % 8 == 0 && *shift < 64 => {
            return 8 - shift / 8;
        }
        Some([Op::Convert { bits, .. }, ..]) => return u64::from(*bits).div_ceil(8),
        _ => {}
    }
    let carries_upwards = ops.iter().all(|op| {
        matches!(
            op,
            Op::Arg(_)
                | Op::Constu(_)
                | Op::Consts(_)
                | Op::PlusUconst(_)
                | Op::Plus
                | Op::Minus
                | Op::Mul
                | Op::And
                | Op::Or
                | Op::Xor
                | Op::Not
                | Op::Neg
                | Op::Shl
                | Op::StackValue
        )
    });
    match size {
        Some(size) if carries_upwards && size > 0 => size.min(8),
        _ => 8,
    }
}

/// The DWARF name llvm-dwarfdump gives register `dwarf` (`RAX`, `XMM0`).
pub fn register_name(dwarf: u16) -> String {
    match register_of(dwarf) {
        Some(register) => register.to_string().to_uppercase(),
        None => format!("reg{dwarf}"),
    }
}

/// `location` printed as DWARF operations, as llvm-dwarfdump prints them
/// (the reader's `DW_OP_LLVM_arg` form folded back: `Arg` over a register
/// then `PlusUconst` is one `DW_OP_bregN`).
pub fn describe(location: &Location) -> String {
    let mut parts: Vec<String> = Vec::new();
    let ops = &location.ops;
    let mut index = 0;
    while index < ops.len() {
        let op = ops[index];
        index += 1;
        let text = match op {
            Op::Arg(n) => match location.args.get(n as usize) {
                Some(LocationArg::Register { register, .. }) => {
                    let alone = index == 1 || matches!(ops[index - 2], Op::Piece(_));
                    let ends = matches!(ops.get(index), None | Some(Op::Piece(_)));
                    match ops.get(index) {
                        Some(Op::PlusUconst(k)) => {
                            index += 1;
                            format!("DW_OP_breg{register} {}+{k}", register_name(*register))
                        }
                        _ if alone && ends => {
                            format!("DW_OP_reg{register} {}", register_name(*register))
                        }
                        _ => format!("DW_OP_breg{register} {}+0", register_name(*register)),
                    }
                }
                Some(LocationArg::FloatRegister { register, .. }) => {
                    format!("DW_OP_reg{register} {}", register_name(*register))
                }
                Some(LocationArg::FrameSlot(offset)) => format!("DW_OP_fbreg {offset}"),
                Some(LocationArg::EntryValue { register }) => format!(
                    "DW_OP_entry_value(DW_OP_reg{register} {})",
                    register_name(*register)
                ),
                Some(LocationArg::Constant(value)) => format!("DW_OP_consts {value}"),
                None => format!("DW_OP_LLVM_arg {n}"),
            },
            Op::Constu(v) => format!("DW_OP_constu {v:#x}"),
            Op::Consts(v) => format!("DW_OP_consts {v}"),
            Op::PlusUconst(v) => format!("DW_OP_plus_uconst {v:#x}"),
            Op::Plus => "DW_OP_plus".into(),
            Op::Minus => "DW_OP_minus".into(),
            Op::Mul => "DW_OP_mul".into(),
            Op::Div => "DW_OP_div".into(),
            Op::Mod => "DW_OP_mod".into(),
            Op::And => "DW_OP_and".into(),
            Op::Or => "DW_OP_or".into(),
            Op::Xor => "DW_OP_xor".into(),
            Op::Shl => "DW_OP_shl".into(),
            Op::Shr => "DW_OP_shr".into(),
            Op::Shra => "DW_OP_shra".into(),
            Op::Neg => "DW_OP_neg".into(),
            Op::Not => "DW_OP_not".into(),
            Op::Compare(comparison) => comparison.name().into(),
            Op::Deref => "DW_OP_deref".into(),
            Op::DerefSize(n) => format!("DW_OP_deref_size {n:#x}"),
            Op::StackValue => "DW_OP_stack_value".into(),
            Op::Convert { bits, signed } => {
                format!("DW_OP_convert ({}{bits})", if signed { "s" } else { "u" })
            }
            Op::Piece(n) => format!("DW_OP_piece {n:#x}"),
        };
        parts.push(text);
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn register(register: u16) -> LocationArg {
        LocationArg::Register {
            register,
            bits: 64,
            signed: false,
        }
    }

    #[test]
    fn a_dereferenced_register_is_a_base_and_a_pointer_slot() {
        let location = Location {
            args: vec![register(0)],
            ops: vec![Op::Arg(0), Op::PlusUconst(0), Op::Deref],
        };
        let found = demands(&location, Some(4));
        assert_eq!(
            found.registers,
            vec![RegisterDemand {
                register: register_of(0).unwrap(),
                bytes: 0xff,
                role: Role::Base
            }]
        );
        assert_eq!(
            found.pointer_slots,
            vec![PointerSlot {
                register: register_of(0).unwrap(),
                offset: 0
            }]
        );
        assert_eq!(describe(&location), "DW_OP_breg0 RAX+0, DW_OP_deref");
    }

    #[test]
    fn a_register_location_reads_the_variables_bytes_and_pieces_their_own() {
        let location = Location {
            args: vec![register(3), register(17)],
            ops: vec![Op::Arg(0), Op::Piece(2), Op::Arg(1), Op::Piece(4)],
        };
        let found = demands(&location, Some(6));
        let bytes: Vec<(u16, u32, Role)> = found
            .registers
            .iter()
            .map(|d| (d.register.dwarf(), d.bytes, d.role))
            .collect();
        assert_eq!(
            bytes,
            vec![(3, 0b11, Role::Register), (17, 0b1111, Role::Register)]
        );
        assert_eq!(
            describe(&location),
            "DW_OP_reg3 RBX, DW_OP_piece 0x2, DW_OP_reg17 XMM0, DW_OP_piece 0x4"
        );
    }

    #[test]
    fn an_entry_value_names_its_register() {
        let location = Location {
            args: vec![LocationArg::EntryValue { register: 3 }],
            ops: vec![Op::Arg(0), Op::StackValue],
        };
        assert_eq!(demands(&location, Some(4)).entry_values, vec![3]);
        assert_eq!(
            describe(&location),
            "DW_OP_entry_value(DW_OP_reg3 RBX), DW_OP_stack_value"
        );
    }
}
