//! The x86 instructions inline asm may use, by AT&T mnemonic and register
//! name: a table onto iced-x86 [`Code`]s, never an encoder of our own.
//!
//! In: a mnemonic as C code writes it (`bswap`, `xaddl`, `rdtsc`, `cmova`), the
//! shape of its operands in Intel order and their width; a register name
//! (`eax`, `r8d`). Out: the iced-x86 code, or `None` for anything outside
//! the table (the caller reports it, quoting the template).

use iced_x86::Code;

use super::Gpr;
use crate::codegen::mir::Width;

/// The operands of an instruction, in Intel order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// No operands.
    None,
    /// One register.
    R,
    /// One register or memory operand.
    Rm,
    /// A register or memory destination and a register source.
    RmR,
    /// A register destination and a register or memory source.
    RRm,
    /// A register or memory destination and an immediate.
    RmImm,
}

/// The codes of one mnemonic and shape at widths 8, 16, 32 and 64.
type ByWidth = [Code; 4];

const X: Code = Code::INVALID;

fn by_width(width: Width) -> usize {
    match width {
        Width::W8 => 0,
        Width::W16 => 1,
        Width::W32 => 2,
        Width::W64 => 3,
    }
}

/// Instructions without operands.
fn plain(mnemonic: &str) -> Option<Code> {
    Some(match mnemonic {
        "rdtsc" => Code::Rdtsc,
        "rdtscp" => Code::Rdtscp,
        "cpuid" => Code::Cpuid,
        "pause" => Code::Pause,
        "mfence" => Code::Mfence,
        "lfence" => Code::Lfence,
        "sfence" => Code::Sfence,
        "int3" => Code::Int3,
        "ud2" => Code::Ud2,
        "nop" => Code::Nopd,
        "cld" => Code::Cld,
        "std" => Code::Std,
        _ => return None,
    })
}

fn table(mnemonic: &str, shape: Shape) -> Option<ByWidth> {
    use Code::*;
    Some(match (mnemonic, shape) {
        ("bswap", Shape::R) => [X, X, Bswap_r32, Bswap_r64],
        ("inc", Shape::Rm | Shape::R) => [Inc_rm8, Inc_rm16, Inc_rm32, Inc_rm64],
        ("dec", Shape::Rm | Shape::R) => [Dec_rm8, Dec_rm16, Dec_rm32, Dec_rm64],
        ("neg", Shape::Rm | Shape::R) => [Neg_rm8, Neg_rm16, Neg_rm32, Neg_rm64],
        ("not", Shape::Rm | Shape::R) => [Not_rm8, Not_rm16, Not_rm32, Not_rm64],
        ("xchg", Shape::RmR) => [Xchg_rm8_r8, Xchg_rm16_r16, Xchg_rm32_r32, Xchg_rm64_r64],
        ("xchg", Shape::RRm) => [Xchg_rm8_r8, Xchg_rm16_r16, Xchg_rm32_r32, Xchg_rm64_r64],
        ("xadd", Shape::RmR) => [Xadd_rm8_r8, Xadd_rm16_r16, Xadd_rm32_r32, Xadd_rm64_r64],
        ("cmpxchg", Shape::RmR) => [
            Cmpxchg_rm8_r8,
            Cmpxchg_rm16_r16,
            Cmpxchg_rm32_r32,
            Cmpxchg_rm64_r64,
        ],
        ("mov", Shape::RmR) => [Mov_rm8_r8, Mov_rm16_r16, Mov_rm32_r32, Mov_rm64_r64],
        ("mov", Shape::RRm) => [Mov_r8_rm8, Mov_r16_rm16, Mov_r32_rm32, Mov_r64_rm64],
        ("mov", Shape::RmImm) => [Mov_rm8_imm8, Mov_rm16_imm16, Mov_rm32_imm32, Mov_rm64_imm32],
        ("add", Shape::RmR) => [Add_rm8_r8, Add_rm16_r16, Add_rm32_r32, Add_rm64_r64],
        ("add", Shape::RRm) => [Add_r8_rm8, Add_r16_rm16, Add_r32_rm32, Add_r64_rm64],
        ("add", Shape::RmImm) => [Add_rm8_imm8, Add_rm16_imm16, Add_rm32_imm32, Add_rm64_imm32],
        ("sub", Shape::RmR) => [Sub_rm8_r8, Sub_rm16_r16, Sub_rm32_r32, Sub_rm64_r64],
        ("sub", Shape::RRm) => [Sub_r8_rm8, Sub_r16_rm16, Sub_r32_rm32, Sub_r64_rm64],
        ("sub", Shape::RmImm) => [Sub_rm8_imm8, Sub_rm16_imm16, Sub_rm32_imm32, Sub_rm64_imm32],
        ("and", Shape::RmR) => [And_rm8_r8, And_rm16_r16, And_rm32_r32, And_rm64_r64],
        ("and", Shape::RRm) => [And_r8_rm8, And_r16_rm16, And_r32_rm32, And_r64_rm64],
        ("and", Shape::RmImm) => [And_rm8_imm8, And_rm16_imm16, And_rm32_imm32, And_rm64_imm32],
        ("or", Shape::RmR) => [Or_rm8_r8, Or_rm16_r16, Or_rm32_r32, Or_rm64_r64],
        ("or", Shape::RRm) => [Or_r8_rm8, Or_r16_rm16, Or_r32_rm32, Or_r64_rm64],
        ("or", Shape::RmImm) => [Or_rm8_imm8, Or_rm16_imm16, Or_rm32_imm32, Or_rm64_imm32],
        ("xor", Shape::RmR) => [Xor_rm8_r8, Xor_rm16_r16, Xor_rm32_r32, Xor_rm64_r64],
        ("xor", Shape::RRm) => [Xor_r8_rm8, Xor_r16_rm16, Xor_r32_rm32, Xor_r64_rm64],
        ("xor", Shape::RmImm) => [Xor_rm8_imm8, Xor_rm16_imm16, Xor_rm32_imm32, Xor_rm64_imm32],
        ("cmp", Shape::RmR) => [Cmp_rm8_r8, Cmp_rm16_r16, Cmp_rm32_r32, Cmp_rm64_r64],
        ("cmp", Shape::RRm) => [Cmp_r8_rm8, Cmp_r16_rm16, Cmp_r32_rm32, Cmp_r64_rm64],
        ("cmp", Shape::RmImm) => [Cmp_rm8_imm8, Cmp_rm16_imm16, Cmp_rm32_imm32, Cmp_rm64_imm32],
        ("rol", Shape::RmImm) => [Rol_rm8_imm8, Rol_rm16_imm8, Rol_rm32_imm8, Rol_rm64_imm8],
        ("ror", Shape::RmImm) => [Ror_rm8_imm8, Ror_rm16_imm8, Ror_rm32_imm8, Ror_rm64_imm8],
        ("shl", Shape::RmImm) => [Shl_rm8_imm8, Shl_rm16_imm8, Shl_rm32_imm8, Shl_rm64_imm8],
        ("shr", Shape::RmImm) => [Shr_rm8_imm8, Shr_rm16_imm8, Shr_rm32_imm8, Shr_rm64_imm8],
        ("sar", Shape::RmImm) => [Sar_rm8_imm8, Sar_rm16_imm8, Sar_rm32_imm8, Sar_rm64_imm8],
        (cmov, Shape::RRm) if cmov.starts_with("cmov") => return cmov_codes(&cmov[4..]),
        _ => return None,
    })
}

/// `cmovCC` by its condition (`a`, `nbe`, `z`...): register destination,
/// register or memory source, 16 to 64 bits.
fn cmov_codes(condition: &str) -> Option<ByWidth> {
    use Code::*;
    Some(match condition {
        "a" | "nbe" => [X, Cmova_r16_rm16, Cmova_r32_rm32, Cmova_r64_rm64],
        "ae" | "nb" | "nc" => [X, Cmovae_r16_rm16, Cmovae_r32_rm32, Cmovae_r64_rm64],
        "b" | "nae" | "c" => [X, Cmovb_r16_rm16, Cmovb_r32_rm32, Cmovb_r64_rm64],
        "be" | "na" => [X, Cmovbe_r16_rm16, Cmovbe_r32_rm32, Cmovbe_r64_rm64],
        "e" | "z" => [X, Cmove_r16_rm16, Cmove_r32_rm32, Cmove_r64_rm64],
        "ne" | "nz" => [X, Cmovne_r16_rm16, Cmovne_r32_rm32, Cmovne_r64_rm64],
        "g" | "nle" => [X, Cmovg_r16_rm16, Cmovg_r32_rm32, Cmovg_r64_rm64],
        "ge" | "nl" => [X, Cmovge_r16_rm16, Cmovge_r32_rm32, Cmovge_r64_rm64],
        "l" | "nge" => [X, Cmovl_r16_rm16, Cmovl_r32_rm32, Cmovl_r64_rm64],
        "le" | "ng" => [X, Cmovle_r16_rm16, Cmovle_r32_rm32, Cmovle_r64_rm64],
        "s" => [X, Cmovs_r16_rm16, Cmovs_r32_rm32, Cmovs_r64_rm64],
        "ns" => [X, Cmovns_r16_rm16, Cmovns_r32_rm32, Cmovns_r64_rm64],
        "o" => [X, Cmovo_r16_rm16, Cmovo_r32_rm32, Cmovo_r64_rm64],
        "no" => [X, Cmovno_r16_rm16, Cmovno_r32_rm32, Cmovno_r64_rm64],
        "p" | "pe" => [X, Cmovp_r16_rm16, Cmovp_r32_rm32, Cmovp_r64_rm64],
        "np" | "po" => [X, Cmovnp_r16_rm16, Cmovnp_r32_rm32, Cmovnp_r64_rm64],
        _ => return None,
    })
}

/// The code of `mnemonic` (with or without an AT&T size suffix) for
/// operands of `shape`; `width` is the operands' width when no suffix gives
/// it. The width used is returned with the code.
pub fn code_for(mnemonic: &str, shape: Shape, width: Option<Width>) -> Option<(Code, Width)> {
    if shape == Shape::None {
        return plain(mnemonic).map(|c| (c, Width::W64));
    }
    let suffixed = mnemonic.char_indices().last().and_then(|(i, c)| {
        let w = match c {
            'b' => Width::W8,
            'w' => Width::W16,
            'l' => Width::W32,
            'q' => Width::W64,
            _ => return None,
        };
        Some((&mnemonic[..i], w))
    });
    let (codes, width) = match table(mnemonic, shape) {
        Some(codes) => (codes, width?),
        None => {
            let (base, w) = suffixed?;
            (table(base, shape)?, w)
        }
    };
    let code = codes[by_width(width)];
    (code != Code::INVALID).then_some((code, width))
}

/// The register an AT&T name (without `%`) names, with its width.
pub fn register_named(name: &str) -> Option<(Gpr, Width)> {
    const LEGACY: [[&str; 4]; 8] = [
        ["al", "ax", "eax", "rax"],
        ["cl", "cx", "ecx", "rcx"],
        ["dl", "dx", "edx", "rdx"],
        ["bl", "bx", "ebx", "rbx"],
        ["spl", "sp", "esp", "rsp"],
        ["bpl", "bp", "ebp", "rbp"],
        ["sil", "si", "esi", "rsi"],
        ["dil", "di", "edi", "rdi"],
    ];
    const WIDTHS: [Width; 4] = [Width::W8, Width::W16, Width::W32, Width::W64];
    for (hw, names) in LEGACY.iter().enumerate() {
        if let Some(w) = names.iter().position(|n| *n == name) {
            return Some((Gpr::ALL[hw], WIDTHS[w]));
        }
    }
    let number = name.strip_prefix('r')?;
    let digits = number.trim_end_matches(['b', 'w', 'd']);
    let n: usize = digits.parse().ok()?;
    if !(8..16).contains(&n) {
        return None;
    }
    let width = match &number[digits.len()..] {
        "" => Width::W64,
        "d" => Width::W32,
        "w" => Width::W16,
        "b" => Width::W8,
        _ => return None,
    };
    Some((Gpr::ALL[n], width))
}
