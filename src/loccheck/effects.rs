//! What one decoded instruction does to the registers a location reads.
//!
//! In: an iced-x86 [`Instruction`] and its [`InstructionInfo`]. Out: the
//! bytes of a register it changes ([`written_bytes`]), how it moves the
//! stack pointer ([`stack_effect`]), and what it makes of a register it
//! defines ([`Definition`], for the not-an-address heuristic).
//!
//! Rules: a write to a 32-bit general-purpose register changes all eight
//! bytes (it zero-extends); an 8- or 16-bit write changes only its bytes
//! (`ah` is byte 1); an xmm/ymm write changes the low sixteen bytes. A
//! write that leaves the register as it was (`mov rax, rax`, `xchg rax,
//! rax`, `lea rax, [rax]`) changes nothing, and an extension of a register
//! into itself (`movzx edi, di`, `mov eax, eax`, `cdqe`) only the bytes
//! above its source. A call returns with rsp as it found it (what it does
//! to other registers is `calls`' business).

use iced_x86::{
    Code, FlowControl, Instruction, InstructionInfo, Mnemonic, OpAccess, OpKind, Register,
};

use crate::x86::abi::{RETURN_REGISTERS, XMM_RETURN_REGISTERS};
use crate::x86::regs::{Gpr, PhysReg, RegSet, Xmm};

/// The register of ours an iced register is part of, and the mask of its
/// bytes the iced register covers.
fn part_of(register: Register) -> Option<(PhysReg, u32)> {
    if register.is_gpr() {
        let full = register.full_register();
        let gpr = Gpr::ALL.get(full.number())?;
        let bytes = match register {
            Register::AH | Register::CH | Register::DH | Register::BH => 0b10,
            _ if register.is_gpr8() => 0b1,
            _ if register.is_gpr16() => 0b11,
            _ => 0xff,
        };
        return Some((PhysReg::Gpr(*gpr), bytes));
    }
    if register.is_xmm() || register.is_ymm() || register.is_zmm() {
        let n = register.number();
        return (n < 16).then(|| (PhysReg::Xmm(Xmm::new(n as u8)), 0xffff));
    }
    None
}

/// Whether the instruction is a call (it returns; caller-saved registers
/// are lost).
pub fn is_call(instruction: &Instruction) -> bool {
    matches!(
        instruction.flow_control(),
        FlowControl::Call | FlowControl::IndirectCall
    )
}

/// Whether control never falls through the instruction to the next one
/// (a return, a jump, a trap).
pub fn ends_flow(instruction: &Instruction) -> bool {
    matches!(
        instruction.flow_control(),
        FlowControl::Return
            | FlowControl::UnconditionalBranch
            | FlowControl::IndirectBranch
            | FlowControl::Interrupt
            | FlowControl::Exception
    ) || instruction.mnemonic() == Mnemonic::Ud2
}

/// Whether a call returns its result in `register` (rax, rdx, xmm0, xmm1).
pub fn is_return_register(register: PhysReg) -> bool {
    RETURN_REGISTERS
        .iter()
        .any(|&g| PhysReg::Gpr(g) == register)
        || XMM_RETURN_REGISTERS
            .iter()
            .any(|&x| PhysReg::Xmm(x) == register)
}

/// A write that leaves its register as it was.
fn writes_back_the_same(instruction: &Instruction) -> bool {
    let same_registers = instruction.op_count() == 2
        && instruction.op0_kind() == OpKind::Register
        && instruction.op1_kind() == OpKind::Register
        && instruction.op0_register() == instruction.op1_register()
        && instruction.op0_register().is_gpr64();
    match instruction.mnemonic() {
        Mnemonic::Mov | Mnemonic::Xchg => same_registers,
        Mnemonic::Lea => {
            instruction.memory_base() == instruction.op0_register()
                && instruction.memory_index() == Register::None
                && instruction.memory_displacement64() == 0
                && instruction.op0_register().is_gpr64()
        }
        _ => false,
    }
}

/// For an extension of a register into itself (`movzx edi, di`, `movsxd
/// rsi, esi`, `cdqe`), the bytes it keeps: those of the narrower source.
fn kept_by_extension(instruction: &Instruction) -> u32 {
    let source = match instruction.mnemonic() {
        Mnemonic::Cdqe => Register::EAX,
        Mnemonic::Cwde => Register::AX,
        Mnemonic::Cbw => Register::AL,
        Mnemonic::Movzx | Mnemonic::Movsx | Mnemonic::Movsxd
            if instruction.op1_kind() == OpKind::Register =>
        {
            instruction.op1_register()
        }
        Mnemonic::Mov
            if instruction.op1_kind() == OpKind::Register
                && instruction.op0_register().is_gpr32() =>
        {
            instruction.op1_register()
        }
        _ => return 0,
    };
    let destination = match instruction.mnemonic() {
        Mnemonic::Cdqe | Mnemonic::Cwde | Mnemonic::Cbw => Register::RAX,
        _ => instruction.op0_register(),
    };
    match (part_of(source), part_of(destination)) {
        (Some((from, _)), Some((to, _))) if from == to && source.is_gpr() && source.size() < 8 => {
            if matches!(
                source,
                Register::AH | Register::CH | Register::DH | Register::BH
            ) {
                0
            } else {
                (1u32 << source.size()) - 1
            }
        }
        _ => 0,
    }
}

/// Every register the instruction writes (in part or whole).
pub fn written_registers(info: &InstructionInfo) -> RegSet {
    info.used_registers()
        .iter()
        .filter(|used| is_write(used.access()))
        .filter_map(|used| part_of(used.register()))
        .fold(RegSet::EMPTY, |set, (register, _)| set.with(register))
}

fn is_write(access: OpAccess) -> bool {
    matches!(
        access,
        OpAccess::Write | OpAccess::CondWrite | OpAccess::ReadWrite | OpAccess::ReadCondWrite
    )
}

/// The bytes of `register` the instruction changes (calls and the stack
/// pointer are the caller's business: see [`is_call`], [`stack_effect`]).
pub fn written_bytes(instruction: &Instruction, info: &InstructionInfo, register: PhysReg) -> u32 {
    if writes_back_the_same(instruction) {
        return 0;
    }
    let kept = kept_by_extension(instruction);
    info.used_registers()
        .iter()
        .filter(|used| is_write(used.access()))
        .filter_map(|used| part_of(used.register()))
        .filter(|(of, _)| *of == register)
        .fold(0, |mask, (_, bytes)| mask | bytes)
        & !kept
}

/// How an instruction moves rsp: by a known amount, or to somewhere the
/// checker cannot follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StackEffect {
    /// rsp moves by this many bytes (0: untouched, or a call, which returns).
    By(i64),
    /// rsp is set to something else (`mov rsp, rbp`, `and rsp, -32`, ...).
    Unknown,
}

/// What the instruction does to rsp.
pub fn stack_effect(instruction: &Instruction, info: &InstructionInfo) -> StackEffect {
    if is_call(instruction) {
        return StackEffect::By(0);
    }
    let immediate = || match instruction.op1_kind() {
        OpKind::Immediate8to64 | OpKind::Immediate32to64 => Some(instruction.immediate64() as i64),
        _ => None,
    };
    let on_rsp =
        instruction.op0_kind() == OpKind::Register && instruction.op0_register() == Register::RSP;
    match instruction.mnemonic() {
        Mnemonic::Push => {
            return StackEffect::By(-(instruction.stack_pointer_increment().abs() as i64))
        }
        Mnemonic::Pop => return StackEffect::By(i64::from(instruction.stack_pointer_increment())),
        Mnemonic::Sub if on_rsp => {
            if let Some(k) = immediate() {
                return StackEffect::By(-k);
            }
        }
        Mnemonic::Add if on_rsp => {
            if let Some(k) = immediate() {
                return StackEffect::By(k);
            }
        }
        _ => {}
    }
    if written_bytes(instruction, info, PhysReg::Gpr(Gpr::Rsp)) != 0 {
        StackEffect::Unknown
    } else {
        StackEffect::By(0)
    }
}

/// What a definition leaves in the register it writes, as far as telling
/// addresses from plain values goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Definition {
    /// Not an address: a value of 32 bits or fewer (zero-extended into the
    /// register), or the result of arithmetic no address comes from
    /// (multiplication, division, a sign-extended 32-bit value, a
    /// conversion, a bit count).
    PlainValue,
    /// Anything else (a load, an address computation, a copy, ...).
    Other,
}

/// What `instruction`, which writes `register` whole, leaves in it;
/// `relocated` says whether a relocation patches the instruction (then a
/// 32-bit immediate is a symbol's address).
pub fn definition(instruction: &Instruction, register: PhysReg, relocated: bool) -> Definition {
    let destination = instruction.op0_register();
    if instruction.op0_kind() != OpKind::Register
        || part_of(destination).map(|(r, _)| r) != Some(register)
        || !destination.is_gpr()
    {
        return Definition::Other;
    }
    if !destination.is_gpr64() && !relocated {
        return Definition::PlainValue;
    }
    let plain_arithmetic = matches!(
        instruction.mnemonic(),
        Mnemonic::Imul
            | Mnemonic::Mul
            | Mnemonic::Div
            | Mnemonic::Idiv
            | Mnemonic::Popcnt
            | Mnemonic::Lzcnt
            | Mnemonic::Tzcnt
            | Mnemonic::Bsr
            | Mnemonic::Bsf
            | Mnemonic::Cvttsd2si
            | Mnemonic::Cvttss2si
            | Mnemonic::Cvtsd2si
            | Mnemonic::Cvtss2si
    ) || matches!(
        instruction.code(),
        Code::Movsxd_r64_rm32 | Code::Movsxd_r32_rm32
    );
    if destination.is_gpr64() && plain_arithmetic {
        Definition::PlainValue
    } else {
        Definition::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iced_x86::{Decoder, DecoderOptions, InstructionInfoFactory};

    fn decode(bytes: &[u8]) -> (Instruction, InstructionInfo) {
        let instruction = Decoder::new(64, bytes, DecoderOptions::NONE).decode();
        let info = InstructionInfoFactory::new().info(&instruction).clone();
        (instruction, info)
    }

    const RAX: PhysReg = PhysReg::Gpr(Gpr::Rax);

    #[test]
    fn partial_writes_change_their_bytes_and_32_bit_writes_all_eight() {
        // mov al, 1 / mov ah, 1 / mov eax, 1 / mov rax, rax / cdqe / movzx eax, al
        let cases: [(&[u8], u32); 6] = [
            (&[0xb0, 0x01], 0b1),
            (&[0xb4, 0x01], 0b10),
            (&[0xb8, 0x01, 0, 0, 0], 0xff),
            (&[0x48, 0x89, 0xc0], 0),
            (&[0x48, 0x98], 0xf0),
            (&[0x0f, 0xb6, 0xc0], 0xfe),
        ];
        for (bytes, mask) in cases {
            let (instruction, info) = decode(bytes);
            assert_eq!(
                written_bytes(&instruction, &info, RAX),
                mask,
                "{instruction}"
            );
        }
    }

    #[test]
    fn pushes_pops_and_frame_moves_are_followed() {
        // push rbx / pop rbx / sub rsp, 0x18 / call rel32 / and rsp, -32
        let cases: [(&[u8], StackEffect); 5] = [
            (&[0x53], StackEffect::By(-8)),
            (&[0x5b], StackEffect::By(8)),
            (&[0x48, 0x83, 0xec, 0x18], StackEffect::By(-0x18)),
            (&[0xe8, 0, 0, 0, 0], StackEffect::By(0)),
            (&[0x48, 0x83, 0xe4, 0xe0], StackEffect::Unknown),
        ];
        for (bytes, effect) in cases {
            let (instruction, info) = decode(bytes);
            assert_eq!(stack_effect(&instruction, &info), effect, "{instruction}");
        }
    }

    #[test]
    fn a_32_bit_load_is_a_plain_value_and_a_64_bit_one_is_not() {
        // mov eax, [rax] / mov rax, [rax] / movsxd rax, edi
        let cases: [(&[u8], Definition); 3] = [
            (&[0x8b, 0x00], Definition::PlainValue),
            (&[0x48, 0x8b, 0x00], Definition::Other),
            (&[0x48, 0x63, 0xc7], Definition::PlainValue),
        ];
        for (bytes, expected) in cases {
            let (instruction, _) = decode(bytes);
            assert_eq!(
                definition(&instruction, RAX, false),
                expected,
                "{instruction}"
            );
        }
    }
}
