//! Disassembly of encoded code, for snapshots and `--print` output.
//!
//! In: machine code bytes. Out: one line per instruction, `offset: text` in
//! Intel syntax (iced-x86's decoder and formatter). Branch targets are
//! printed as offsets from the start of the code.

use iced_x86::{Decoder, DecoderOptions, Formatter, IntelFormatter};

/// The Intel-syntax formatter of our listings: `0x` hex in lower case,
/// a space after each operand separator.
pub fn intel_formatter() -> IntelFormatter {
    let mut formatter = IntelFormatter::new();
    let options = formatter.options_mut();
    options.set_space_after_operand_separator(true);
    options.set_hex_prefix("0x");
    options.set_hex_suffix("");
    options.set_branch_leading_zeros(false);
    options.set_uppercase_hex(false);
    formatter
}

/// Disassembles `code` as it would run at address 0.
pub fn disassemble(code: &[u8]) -> String {
    let mut decoder = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    let mut formatter = intel_formatter();
    let mut out = String::new();
    let mut text = String::new();
    for instr in &mut decoder {
        text.clear();
        formatter.format(&instr, &mut text);
        out.push_str(&format!("{:4x}: {text}\n", instr.ip()));
    }
    out
}

/// Where control goes after a decoded instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// To the next instruction (calls included: they return).
    Next,
    /// Only to this offset (an unconditional jump).
    Jump(u64),
    /// To this offset or the next instruction (a conditional jump).
    Branch(u64),
    /// Somewhere a register or memory operand names (a jump table).
    Indirect,
    /// Out of the code: return, tail call, trap, halt.
    Leave,
}

/// One decoded instruction: where it is, how long, where control goes and
/// whether it sets up the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodedInstruction {
    /// Offset of its first byte in the code.
    pub offset: u64,
    /// Length in bytes.
    pub length: u64,
    /// Where control goes after it.
    pub flow: Flow,
    /// A frame-setup instruction: `endbr64`, `push` of a register,
    /// `mov rbp, rsp`, `sub rsp, imm` (what a prologue is made of).
    pub frame_setup: bool,
}

/// Decodes `code` (at offset 0) into instructions with their control flow.
///
/// `relocated(start, end)` says whether a relocation patches a field in
/// `[start, end)`: a jump whose displacement is relocated leaves the code
/// (a tail call), since its bytes do not hold the target. Undecodable
/// bytes end the list with a [`Flow::Leave`] instruction of length 1.
pub fn decode_flow(code: &[u8], relocated: &dyn Fn(u64, u64) -> bool) -> Vec<DecodedInstruction> {
    use iced_x86::{Code, FlowControl, Mnemonic, OpKind, Register};
    let mut decoder = Decoder::with_ip(64, code, 0, DecoderOptions::NONE);
    let mut out = Vec::new();
    for instr in &mut decoder {
        let offset = instr.ip();
        let length = instr.len() as u64;
        if instr.is_invalid() {
            out.push(DecodedInstruction {
                offset,
                length: 1,
                flow: Flow::Leave,
                frame_setup: false,
            });
            break;
        }
        let external = relocated(offset, offset + length);
        let flow = match instr.flow_control() {
            FlowControl::Next | FlowControl::Call | FlowControl::IndirectCall => Flow::Next,
            FlowControl::UnconditionalBranch if external => Flow::Leave,
            FlowControl::UnconditionalBranch => Flow::Jump(instr.near_branch_target()),
            FlowControl::ConditionalBranch if external => Flow::Next,
            FlowControl::ConditionalBranch => Flow::Branch(instr.near_branch_target()),
            FlowControl::IndirectBranch => Flow::Indirect,
            FlowControl::Return | FlowControl::Interrupt | FlowControl::Exception => Flow::Leave,
            FlowControl::XbeginXabortXend => Flow::Next,
        };
        let flow = if instr.mnemonic() == Mnemonic::Hlt || instr.mnemonic() == Mnemonic::Ud2 {
            Flow::Leave
        } else {
            flow
        };
        let frame_setup = matches!(instr.code(), Code::Endbr64 | Code::Push_r64)
            || (instr.code() == Code::Mov_r64_rm64 || instr.code() == Code::Mov_rm64_r64)
                && instr.op0_kind() == OpKind::Register
                && instr.op1_kind() == OpKind::Register
                && instr.op0_register() == Register::RBP
                && instr.op1_register() == Register::RSP
            || matches!(
                instr.code(),
                Code::Sub_rm64_imm8 | Code::Sub_rm64_imm32 | Code::Sub_RAX_imm32
            ) && instr.op0_kind() == OpKind::Register
                && instr.op0_register() == Register::RSP;
        out.push(DecodedInstruction {
            offset,
            length,
            flow,
            frame_setup,
        });
    }
    out
}
