//! iced-x86 opcode tables, indexed by operation, width and condition.
//!
//! In: a MIR operation kind and width. Out: the iced [`Code`] that encodes
//! it. Promise: index `w` of every table is the MIR width `W8, W16, W32,
//! W64` in that order; entries that x86 lacks are `Code::INVALID`.

use crate::codegen::mir::{AluOp, Cond, ShiftOp, UnaryOp, Width};
use iced_x86::Code;

/// Index of a width in the tables.
pub fn wi(width: Width) -> usize {
    match width {
        Width::W8 => 0,
        Width::W16 => 1,
        Width::W32 => 2,
        Width::W64 => 3,
    }
}

/// The forms of a two-operand ALU operation (`cmp` included).
pub struct AluCodes {
    /// `op reg, reg/mem`.
    pub r_rm: [Code; 4],
    /// `op reg/mem, reg`.
    pub rm_r: [Code; 4],
    /// `op reg/mem, imm8` (sign-extended).
    pub rm_imm8: [Code; 4],
    /// `op reg/mem, imm` (imm8/16/32, sign-extended to 64).
    pub rm_imm: [Code; 4],
}

/// The codes of an ALU operation.
pub fn alu(op: AluOp) -> AluCodes {
    match op {
        AluOp::Add => AluCodes {
            r_rm: [
                Code::Add_r8_rm8,
                Code::Add_r16_rm16,
                Code::Add_r32_rm32,
                Code::Add_r64_rm64,
            ],
            rm_r: [
                Code::Add_rm8_r8,
                Code::Add_rm16_r16,
                Code::Add_rm32_r32,
                Code::Add_rm64_r64,
            ],
            rm_imm8: [
                Code::Add_rm8_imm8,
                Code::Add_rm16_imm8,
                Code::Add_rm32_imm8,
                Code::Add_rm64_imm8,
            ],
            rm_imm: [
                Code::Add_rm8_imm8,
                Code::Add_rm16_imm16,
                Code::Add_rm32_imm32,
                Code::Add_rm64_imm32,
            ],
        },
        AluOp::Sub => AluCodes {
            r_rm: [
                Code::Sub_r8_rm8,
                Code::Sub_r16_rm16,
                Code::Sub_r32_rm32,
                Code::Sub_r64_rm64,
            ],
            rm_r: [
                Code::Sub_rm8_r8,
                Code::Sub_rm16_r16,
                Code::Sub_rm32_r32,
                Code::Sub_rm64_r64,
            ],
            rm_imm8: [
                Code::Sub_rm8_imm8,
                Code::Sub_rm16_imm8,
                Code::Sub_rm32_imm8,
                Code::Sub_rm64_imm8,
            ],
            rm_imm: [
                Code::Sub_rm8_imm8,
                Code::Sub_rm16_imm16,
                Code::Sub_rm32_imm32,
                Code::Sub_rm64_imm32,
            ],
        },
        AluOp::And => AluCodes {
            r_rm: [
                Code::And_r8_rm8,
                Code::And_r16_rm16,
                Code::And_r32_rm32,
                Code::And_r64_rm64,
            ],
            rm_r: [
                Code::And_rm8_r8,
                Code::And_rm16_r16,
                Code::And_rm32_r32,
                Code::And_rm64_r64,
            ],
            rm_imm8: [
                Code::And_rm8_imm8,
                Code::And_rm16_imm8,
                Code::And_rm32_imm8,
                Code::And_rm64_imm8,
            ],
            rm_imm: [
                Code::And_rm8_imm8,
                Code::And_rm16_imm16,
                Code::And_rm32_imm32,
                Code::And_rm64_imm32,
            ],
        },
        AluOp::Or => AluCodes {
            r_rm: [
                Code::Or_r8_rm8,
                Code::Or_r16_rm16,
                Code::Or_r32_rm32,
                Code::Or_r64_rm64,
            ],
            rm_r: [
                Code::Or_rm8_r8,
                Code::Or_rm16_r16,
                Code::Or_rm32_r32,
                Code::Or_rm64_r64,
            ],
            rm_imm8: [
                Code::Or_rm8_imm8,
                Code::Or_rm16_imm8,
                Code::Or_rm32_imm8,
                Code::Or_rm64_imm8,
            ],
            rm_imm: [
                Code::Or_rm8_imm8,
                Code::Or_rm16_imm16,
                Code::Or_rm32_imm32,
                Code::Or_rm64_imm32,
            ],
        },
        AluOp::Xor => AluCodes {
            r_rm: [
                Code::Xor_r8_rm8,
                Code::Xor_r16_rm16,
                Code::Xor_r32_rm32,
                Code::Xor_r64_rm64,
            ],
            rm_r: [
                Code::Xor_rm8_r8,
                Code::Xor_rm16_r16,
                Code::Xor_rm32_r32,
                Code::Xor_rm64_r64,
            ],
            rm_imm8: [
                Code::Xor_rm8_imm8,
                Code::Xor_rm16_imm8,
                Code::Xor_rm32_imm8,
                Code::Xor_rm64_imm8,
            ],
            rm_imm: [
                Code::Xor_rm8_imm8,
                Code::Xor_rm16_imm16,
                Code::Xor_rm32_imm32,
                Code::Xor_rm64_imm32,
            ],
        },
        AluOp::Adc => AluCodes {
            r_rm: [
                Code::Adc_r8_rm8,
                Code::Adc_r16_rm16,
                Code::Adc_r32_rm32,
                Code::Adc_r64_rm64,
            ],
            rm_r: [
                Code::Adc_rm8_r8,
                Code::Adc_rm16_r16,
                Code::Adc_rm32_r32,
                Code::Adc_rm64_r64,
            ],
            rm_imm8: [
                Code::Adc_rm8_imm8,
                Code::Adc_rm16_imm8,
                Code::Adc_rm32_imm8,
                Code::Adc_rm64_imm8,
            ],
            rm_imm: [
                Code::Adc_rm8_imm8,
                Code::Adc_rm16_imm16,
                Code::Adc_rm32_imm32,
                Code::Adc_rm64_imm32,
            ],
        },
        AluOp::Sbb => AluCodes {
            r_rm: [
                Code::Sbb_r8_rm8,
                Code::Sbb_r16_rm16,
                Code::Sbb_r32_rm32,
                Code::Sbb_r64_rm64,
            ],
            rm_r: [
                Code::Sbb_rm8_r8,
                Code::Sbb_rm16_r16,
                Code::Sbb_rm32_r32,
                Code::Sbb_rm64_r64,
            ],
            rm_imm8: [
                Code::Sbb_rm8_imm8,
                Code::Sbb_rm16_imm8,
                Code::Sbb_rm32_imm8,
                Code::Sbb_rm64_imm8,
            ],
            rm_imm: [
                Code::Sbb_rm8_imm8,
                Code::Sbb_rm16_imm16,
                Code::Sbb_rm32_imm32,
                Code::Sbb_rm64_imm32,
            ],
        },
    }
}

/// The codes of `cmp`.
pub fn cmp() -> AluCodes {
    AluCodes {
        r_rm: [
            Code::Cmp_r8_rm8,
            Code::Cmp_r16_rm16,
            Code::Cmp_r32_rm32,
            Code::Cmp_r64_rm64,
        ],
        rm_r: [
            Code::Cmp_rm8_r8,
            Code::Cmp_rm16_r16,
            Code::Cmp_rm32_r32,
            Code::Cmp_rm64_r64,
        ],
        rm_imm8: [
            Code::Cmp_rm8_imm8,
            Code::Cmp_rm16_imm8,
            Code::Cmp_rm32_imm8,
            Code::Cmp_rm64_imm8,
        ],
        rm_imm: [
            Code::Cmp_rm8_imm8,
            Code::Cmp_rm16_imm16,
            Code::Cmp_rm32_imm32,
            Code::Cmp_rm64_imm32,
        ],
    }
}

/// `op reg/mem, cl` and `op reg/mem, imm8` codes of a shift.
pub fn shift(op: ShiftOp) -> ([Code; 4], [Code; 4]) {
    match op {
        ShiftOp::Shl => (
            [
                Code::Shl_rm8_CL,
                Code::Shl_rm16_CL,
                Code::Shl_rm32_CL,
                Code::Shl_rm64_CL,
            ],
            [
                Code::Shl_rm8_imm8,
                Code::Shl_rm16_imm8,
                Code::Shl_rm32_imm8,
                Code::Shl_rm64_imm8,
            ],
        ),
        ShiftOp::Shr => (
            [
                Code::Shr_rm8_CL,
                Code::Shr_rm16_CL,
                Code::Shr_rm32_CL,
                Code::Shr_rm64_CL,
            ],
            [
                Code::Shr_rm8_imm8,
                Code::Shr_rm16_imm8,
                Code::Shr_rm32_imm8,
                Code::Shr_rm64_imm8,
            ],
        ),
        ShiftOp::Sar => (
            [
                Code::Sar_rm8_CL,
                Code::Sar_rm16_CL,
                Code::Sar_rm32_CL,
                Code::Sar_rm64_CL,
            ],
            [
                Code::Sar_rm8_imm8,
                Code::Sar_rm16_imm8,
                Code::Sar_rm32_imm8,
                Code::Sar_rm64_imm8,
            ],
        ),
        ShiftOp::Rol => (
            [
                Code::Rol_rm8_CL,
                Code::Rol_rm16_CL,
                Code::Rol_rm32_CL,
                Code::Rol_rm64_CL,
            ],
            [
                Code::Rol_rm8_imm8,
                Code::Rol_rm16_imm8,
                Code::Rol_rm32_imm8,
                Code::Rol_rm64_imm8,
            ],
        ),
        ShiftOp::Ror => (
            [
                Code::Ror_rm8_CL,
                Code::Ror_rm16_CL,
                Code::Ror_rm32_CL,
                Code::Ror_rm64_CL,
            ],
            [
                Code::Ror_rm8_imm8,
                Code::Ror_rm16_imm8,
                Code::Ror_rm32_imm8,
                Code::Ror_rm64_imm8,
            ],
        ),
    }
}

/// The codes of a one-operand operation.
pub fn unary(op: UnaryOp) -> [Code; 4] {
    match op {
        UnaryOp::Neg => [
            Code::Neg_rm8,
            Code::Neg_rm16,
            Code::Neg_rm32,
            Code::Neg_rm64,
        ],
        UnaryOp::Not => [
            Code::Not_rm8,
            Code::Not_rm16,
            Code::Not_rm32,
            Code::Not_rm64,
        ],
        UnaryOp::Bswap => [
            Code::INVALID,
            Code::INVALID,
            Code::Bswap_r32,
            Code::Bswap_r64,
        ],
    }
}

/// `jcc rel32`, `setcc r/m8` and `cmovcc r, r/m` (W16/W32/W64) of a condition.
pub fn cond(c: Cond) -> (Code, Code, [Code; 3]) {
    match c {
        Cond::O => (
            Code::Jo_rel32_64,
            Code::Seto_rm8,
            [
                Code::Cmovo_r16_rm16,
                Code::Cmovo_r32_rm32,
                Code::Cmovo_r64_rm64,
            ],
        ),
        Cond::No => (
            Code::Jno_rel32_64,
            Code::Setno_rm8,
            [
                Code::Cmovno_r16_rm16,
                Code::Cmovno_r32_rm32,
                Code::Cmovno_r64_rm64,
            ],
        ),
        Cond::B => (
            Code::Jb_rel32_64,
            Code::Setb_rm8,
            [
                Code::Cmovb_r16_rm16,
                Code::Cmovb_r32_rm32,
                Code::Cmovb_r64_rm64,
            ],
        ),
        Cond::Ae => (
            Code::Jae_rel32_64,
            Code::Setae_rm8,
            [
                Code::Cmovae_r16_rm16,
                Code::Cmovae_r32_rm32,
                Code::Cmovae_r64_rm64,
            ],
        ),
        Cond::E => (
            Code::Je_rel32_64,
            Code::Sete_rm8,
            [
                Code::Cmove_r16_rm16,
                Code::Cmove_r32_rm32,
                Code::Cmove_r64_rm64,
            ],
        ),
        Cond::Ne => (
            Code::Jne_rel32_64,
            Code::Setne_rm8,
            [
                Code::Cmovne_r16_rm16,
                Code::Cmovne_r32_rm32,
                Code::Cmovne_r64_rm64,
            ],
        ),
        Cond::Be => (
            Code::Jbe_rel32_64,
            Code::Setbe_rm8,
            [
                Code::Cmovbe_r16_rm16,
                Code::Cmovbe_r32_rm32,
                Code::Cmovbe_r64_rm64,
            ],
        ),
        Cond::A => (
            Code::Ja_rel32_64,
            Code::Seta_rm8,
            [
                Code::Cmova_r16_rm16,
                Code::Cmova_r32_rm32,
                Code::Cmova_r64_rm64,
            ],
        ),
        Cond::S => (
            Code::Js_rel32_64,
            Code::Sets_rm8,
            [
                Code::Cmovs_r16_rm16,
                Code::Cmovs_r32_rm32,
                Code::Cmovs_r64_rm64,
            ],
        ),
        Cond::Ns => (
            Code::Jns_rel32_64,
            Code::Setns_rm8,
            [
                Code::Cmovns_r16_rm16,
                Code::Cmovns_r32_rm32,
                Code::Cmovns_r64_rm64,
            ],
        ),
        Cond::P => (
            Code::Jp_rel32_64,
            Code::Setp_rm8,
            [
                Code::Cmovp_r16_rm16,
                Code::Cmovp_r32_rm32,
                Code::Cmovp_r64_rm64,
            ],
        ),
        Cond::Np => (
            Code::Jnp_rel32_64,
            Code::Setnp_rm8,
            [
                Code::Cmovnp_r16_rm16,
                Code::Cmovnp_r32_rm32,
                Code::Cmovnp_r64_rm64,
            ],
        ),
        Cond::L => (
            Code::Jl_rel32_64,
            Code::Setl_rm8,
            [
                Code::Cmovl_r16_rm16,
                Code::Cmovl_r32_rm32,
                Code::Cmovl_r64_rm64,
            ],
        ),
        Cond::Ge => (
            Code::Jge_rel32_64,
            Code::Setge_rm8,
            [
                Code::Cmovge_r16_rm16,
                Code::Cmovge_r32_rm32,
                Code::Cmovge_r64_rm64,
            ],
        ),
        Cond::Le => (
            Code::Jle_rel32_64,
            Code::Setle_rm8,
            [
                Code::Cmovle_r16_rm16,
                Code::Cmovle_r32_rm32,
                Code::Cmovle_r64_rm64,
            ],
        ),
        Cond::G => (
            Code::Jg_rel32_64,
            Code::Setg_rm8,
            [
                Code::Cmovg_r16_rm16,
                Code::Cmovg_r32_rm32,
                Code::Cmovg_r64_rm64,
            ],
        ),
    }
}
