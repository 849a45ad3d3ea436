//! Machine code for a finished MIR function, through iced-x86.
//!
//! In: a [`Function`] after register allocation and frame lowering (only
//! physical registers; addresses based on registers, symbols, GOT entries or
//! jump tables). Out: an [`Encoded`] function: bytes, the offset and length
//! of every MIR instruction, block offsets, relocations, and the jump
//! tables as read-only data with their relocations.
//!
//! Each MIR instruction becomes zero (debug values; a `jmp` to where
//! execution falls through anyway, whose `jcc` before it may be inverted:
//! see [`fallthrough_jumps`]) or one iced
//! `Instruction` (SSE2 ones included: `movss`/`movsd`, arithmetic,
//! `ucomis`/`comis`, `cmpss`/`cmpsd`, conversions, `movd`/`movq`, packed
//! logic, `pxor`, and `movaps` for a copy between xmm registers); [`BlockEncoder`] resolves branches to blocks (choosing
//! short forms where they reach) and reports where each instruction and
//! each constant landed (an inline asm alignment directive pads with
//! `nop`s, grown round by round until every padded point is aligned: see
//! [`assemble`]), from which relocations are placed:
//! - calls to symbols: `R_X86_64_PLT32`, addend -4;
//! - RIP-relative data: `R_X86_64_PC32` (or `R_X86_64_REX_GOTPCRELX` for a
//!   GOT entry), addend = displacement − distance from the field to the
//!   instruction's end;
//! - jump-table entries: 32-bit offsets of the target from the table start,
//!   as `R_X86_64_PC32` against the target code with addend = the entry's
//!   offset in its table (so the object stays position independent);
//! - constant-pool entries of 4, 8 or 16 bytes become the function's
//!   literals (the writer puts them in `.rodata.cst4/8/16`, as llc),
//!   reached RIP-relative (`R_X86_64_PC32` against the literal); others
//!   follow the jump tables in the same read-only data, each aligned to
//!   its size (`R_X86_64_PC32` against the function's read-only data).

use super::codes::{self, wi};
use crate::codegen::mir::{
    Address, AddressBase, BlockId, CallTarget, FpLogicOp, FpOp, FpSize, Function, Gpr, InstKind,
    PackedOp, PackedShift, PackedShuffle, PhysReg, Reg, Ri, Rm, Rmi, ShiftAmount, TlsAccess, Width,
    X87Format, X87Step, Xmm,
};
use crate::ir::hash::FxHashMap;
use dwarfsmith_emit::model::{Relocation, RelocationKind, Symbol};
use iced_x86::{
    BlockEncoder, BlockEncoderOptions, Code, IcedError, Instruction, InstructionBlock,
    MemoryOperand, Register,
};
use std::fmt;

/// An encoded function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Encoded {
    /// The machine code.
    pub code: Vec<u8>,
    /// `(offset, length)` of every MIR instruction, parallel to the blocks
    /// and their instructions; a debug value has length 0 and the offset of
    /// the next instruction.
    pub inst_offsets: Vec<Vec<(u32, u32)>>,
    /// Offset of each block's first byte.
    pub block_offsets: Vec<u32>,
    /// Relocations against `code`.
    pub relocations: Vec<Relocation>,
    /// The jump tables, 4 bytes per entry.
    pub rodata: Vec<u8>,
    /// Relocations against `rodata`.
    pub rodata_relocations: Vec<Relocation>,
    /// Offset of each jump table in `rodata`.
    pub jump_table_offsets: Vec<u32>,
    /// Where each constant-pool entry went.
    pub constant_places: Vec<ConstantPlace>,
    /// The constants of 4, 8 or 16 bytes, in the mergeable literal
    /// sections (`.rodata.cst4/8/16`).
    pub literals: Vec<Vec<u8>>,
    /// The largest inline asm alignment in the code (0: none), which the
    /// function's start must have too.
    pub align: u32,
}

/// Where a constant-pool entry is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstantPlace {
    /// Literal number `n` of the function (4, 8 or 16 bytes, as llc puts
    /// such constants in `.rodata.cst4/8/16`).
    Literal(usize),
    /// At this offset in the function's `rodata` (any other size).
    Rodata(u32),
}

/// The function could not be encoded: an operand form x86 lacks, or a
/// virtual register or frame address left over (a bug in an earlier stage).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError {
    /// What went wrong, naming the instruction.
    pub message: String,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "encoding failed: {}", self.message)
    }
}

impl std::error::Error for EncodeError {}

/// Instruction pointers given to iced instructions: labels for branches,
/// far from the real code addresses (which start at 0) so a RIP-relative
/// target of 0 never names an instruction.
const LABEL_BASE: u64 = 1 << 40;

/// A relocation to place once the code is laid out.
struct PendingReloc {
    /// Index of the iced instruction.
    instr: usize,
    kind: RelocationKind,
    symbol: Symbol,
    /// Added to the symbol's address (memory displacement).
    disp: i64,
}

/// Collects iced instructions for one function.
struct Emitter<'a> {
    function: &'a Function,
    function_index: usize,
    jump_table_offsets: Vec<u32>,
    constant_places: Vec<ConstantPlace>,
    instrs: Vec<Instruction>,
    relocs: Vec<PendingReloc>,
    branches: Vec<(usize, BlockId)>,
    /// Inline asm alignment directives: `(i, bytes)` pads before
    /// `instrs[i]` (or the end) to a multiple of `bytes`.
    alignments: Vec<(usize, u32)>,
}

/// Encodes `f`, which is function number `function_index` of its object
/// (jump-table relocations name it).
pub fn encode(f: &Function, function_index: usize) -> Result<Encoded, EncodeError> {
    let mut jump_table_offsets = Vec::with_capacity(f.jump_tables.len());
    let mut rodata_len = 0u32;
    for table in &f.jump_tables {
        jump_table_offsets.push(rodata_len);
        rodata_len += 4 * table.len() as u32;
    }
    let mut constant_places = Vec::with_capacity(f.constants.len());
    let mut literals = Vec::new();
    for constant in &f.constants {
        let size = constant.bytes.len() as u32;
        if matches!(size, 4 | 8 | 16) {
            constant_places.push(ConstantPlace::Literal(literals.len()));
            literals.push(constant.bytes.clone());
            continue;
        }
        rodata_len = rodata_len.next_multiple_of(size.next_power_of_two().max(1));
        constant_places.push(ConstantPlace::Rodata(rodata_len));
        rodata_len += size;
    }
    let mut em = Emitter {
        function: f,
        function_index,
        jump_table_offsets,
        constant_places,
        instrs: Vec::new(),
        relocs: Vec::new(),
        branches: Vec::new(),
        alignments: Vec::new(),
    };
    // (first iced instruction, how many) of every MIR instruction.
    let mut first_instr: Vec<Vec<(usize, usize)>> = Vec::with_capacity(f.blocks.len());
    let mut block_first = Vec::with_capacity(f.blocks.len());
    let fallthrough = fallthrough_jumps(f);
    for (b, block) in f.blocks.iter().enumerate() {
        block_first.push(em.instrs.len());
        let mut firsts = Vec::with_capacity(block.insts.len());
        for (i, inst) in block.insts.iter().enumerate() {
            let first = em.instrs.len();
            let kind = match fallthrough.get(&(b, i)) {
                Some(None) => {
                    firsts.push((first, 0));
                    continue;
                }
                Some(Some(kind)) => kind,
                None => &inst.kind,
            };
            em.lower(kind).map_err(|message| EncodeError {
                message: format!("`{}` in `{}`: {message}", inst.kind, f.name),
            })?;
            firsts.push((first, em.instrs.len() - first));
        }
        first_instr.push(firsts);
    }
    // A branch to a block that holds no code would target the end.
    if em
        .branches
        .iter()
        .any(|&(_, b)| block_first[b.0 as usize] == em.instrs.len())
    {
        em.instrs.push(Instruction::with(Code::Ud2));
    }
    let branches: Vec<(usize, usize)> = em
        .branches
        .iter()
        .map(|&(i, target)| (i, block_first[target.0 as usize]))
        .collect();
    let Assembled {
        code,
        starts,
        ends,
        constant_offsets,
    } = assemble(&em.instrs, &branches, &em.alignments).map_err(|e| EncodeError {
        message: format!("`{}`: {e}", f.name),
    })?;
    let offset_of = |i: usize| starts[i];

    let mut relocations = Vec::with_capacity(em.relocs.len());
    for r in &em.relocs {
        let end = i64::from(ends[r.instr]);
        let field = match r.kind {
            RelocationKind::Plt32 => end - 4,
            _ => {
                let constants = &constant_offsets[r.instr];
                i64::from(offset_of(r.instr)) + constants.displacement_offset() as i64
            }
        };
        // A PC-relative field counts from the instruction's end; an
        // absolute one (a TLS offset) is the symbol's value plus `disp`.
        let addend = if r.kind.is_pc_relative() {
            r.disp + field - end
        } else {
            r.disp
        };
        relocations.push(Relocation {
            offset: field as u64,
            kind: r.kind,
            symbol: r.symbol.clone(),
            addend,
        });
    }

    let inst_offsets = first_instr
        .iter()
        .map(|insts| {
            insts
                .iter()
                .map(|&(i, count)| {
                    let start = offset_of(i);
                    let end = if count == 0 {
                        start
                    } else {
                        ends[i + count - 1]
                    };
                    (start, end - start)
                })
                .collect()
        })
        .collect();
    let block_offsets: Vec<u32> = block_first.iter().map(|&i| offset_of(i)).collect();

    let mut rodata = vec![0u8; rodata_len as usize];
    for (constant, place) in f.constants.iter().zip(&em.constant_places) {
        if let &ConstantPlace::Rodata(offset) = place {
            let at = offset as usize;
            rodata[at..at + constant.bytes.len()].copy_from_slice(&constant.bytes);
        }
    }
    let mut rodata_relocations = Vec::new();
    for (t, table) in f.jump_tables.iter().enumerate() {
        for (j, target) in table.iter().enumerate() {
            rodata_relocations.push(Relocation {
                offset: u64::from(em.jump_table_offsets[t]) + 4 * j as u64,
                kind: RelocationKind::Pc32,
                symbol: Symbol::FunctionCode {
                    function: function_index,
                    offset: u64::from(block_offsets[target.0 as usize]),
                },
                addend: 4 * j as i64,
            });
        }
    }
    Ok(Encoded {
        code,
        inst_offsets,
        block_offsets,
        relocations,
        rodata,
        rodata_relocations,
        jump_table_offsets: em.jump_table_offsets,
        constant_places: em.constant_places,
        literals,
        align: em
            .alignments
            .iter()
            .map(|&(_, bytes)| bytes)
            .max()
            .unwrap_or(0),
    })
}

/// A function's instructions laid out by iced's [`BlockEncoder`].
struct Assembled {
    /// The machine code.
    code: Vec<u8>,
    /// Where each instruction starts; one more entry: the code's end.
    starts: Vec<u32>,
    /// Where each instruction ends (before any padding after it).
    ends: Vec<u32>,
    /// Where each instruction's displacement and immediate landed.
    constant_offsets: Vec<iced_x86::ConstantOffsets>,
}

/// Rounds of padding adjustment before [`assemble`] gives up. Each round
/// grows the paddings to align their points in the layout of the round
/// before; paddings and branches only grow, so the layout settles once
/// no branch over a padding needs its near form any more.
const ALIGNMENT_ROUNDS: usize = 64;

/// Encodes `instrs` with `branches` (instruction, target instruction)
/// resolved, padding with `nop`s at each alignment point `(i, bytes)` so
/// that instruction `i` (or the end) starts at a multiple of `bytes` from
/// the function's start (which the object aligns as much).
fn assemble(
    instrs: &[Instruction],
    branches: &[(usize, usize)],
    alignments: &[(usize, u32)],
) -> Result<Assembled, String> {
    let mut padding = vec![0u32; alignments.len()];
    for _ in 0..ALIGNMENT_ROUNDS {
        // position[i]: the index of instrs[i] (or the end) among the padded.
        let mut padded = Vec::with_capacity(instrs.len());
        let mut position = Vec::with_capacity(instrs.len() + 1);
        let mut pad_starts = Vec::with_capacity(alignments.len());
        let mut next = 0;
        for i in 0..=instrs.len() {
            while let Some(&(at, _)) = alignments.get(next).filter(|&&(at, _)| at == i) {
                debug_assert_eq!(at, i);
                pad_starts.push(padded.len());
                padded.extend(nops(padding[next])?);
                next += 1;
            }
            position.push(padded.len());
            padded.extend(instrs.get(i).copied());
        }
        for (k, instr) in padded.iter_mut().enumerate() {
            instr.set_ip(LABEL_BASE + k as u64);
        }
        for &(i, target) in branches {
            padded[position[i]].set_near_branch64(LABEL_BASE + position[target] as u64);
        }
        let options = BlockEncoderOptions::RETURN_NEW_INSTRUCTION_OFFSETS
            | BlockEncoderOptions::RETURN_CONSTANT_OFFSETS;
        let result = BlockEncoder::encode(64, InstructionBlock::new(&padded, 0), options)
            .map_err(|e| e.to_string())?;
        let code_len = result.code_buffer.len() as u32;
        let offset = |k: usize| {
            result
                .new_instruction_offsets
                .get(k)
                .copied()
                .unwrap_or(code_len)
        };
        // Each padding grows to the next length that aligns its point: never
        // shrinking, it cannot flip a branch over it between short and near
        // forms round after round.
        let needed: Vec<u32> = alignments
            .iter()
            .zip(&pad_starts)
            .zip(&padding)
            .map(|((&(_, bytes), &k), &pad)| pad + (bytes - (offset(k) + pad) % bytes) % bytes)
            .collect();
        if needed == padding {
            let starts = position.iter().map(|&k| offset(k)).collect();
            let ends = position[..instrs.len()]
                .iter()
                .map(|&k| offset(k + 1))
                .collect();
            let constant_offsets = position[..instrs.len()]
                .iter()
                .map(|&k| result.constant_offsets[k])
                .collect();
            return Ok(Assembled {
                code: result.code_buffer,
                starts,
                ends,
                constant_offsets,
            });
        }
        padding = needed;
    }
    Err("inline asm alignment padding did not settle".into())
}

/// `bytes` of padding as the fewest `nop`s of up to 9 bytes each (the
/// multi-byte forms the Intel manual recommends: `nop` with a memory
/// operand `[rax]`, `[rax + disp]` or `[rax + rax + disp]`, a 16-bit
/// operand size for the odd lengths).
fn nops(bytes: u32) -> Result<Vec<Instruction>, String> {
    let mut out = Vec::new();
    let mut left = bytes;
    while left > 0 {
        let length = left.min(9);
        let mem = |index: Register, displ_size: u32| {
            MemoryOperand::new(
                Register::RAX,
                index,
                1,
                0,
                displ_size,
                false,
                Register::None,
            )
        };
        let instr = match length {
            1 => Ok(Instruction::with(Code::Nopd)),
            2 => Ok(Instruction::with(Code::Nopw)),
            3 => Instruction::with1(Code::Nop_rm32, mem(Register::None, 0)),
            4 => Instruction::with1(Code::Nop_rm32, mem(Register::None, 1)),
            5 => Instruction::with1(Code::Nop_rm32, mem(Register::RAX, 1)),
            6 => Instruction::with1(Code::Nop_rm16, mem(Register::RAX, 1)),
            7 => Instruction::with1(Code::Nop_rm32, mem(Register::None, DISP32)),
            8 => Instruction::with1(Code::Nop_rm32, mem(Register::RAX, DISP32)),
            _ => Instruction::with1(Code::Nop_rm16, mem(Register::RAX, DISP32)),
        };
        out.push(instr.map_err(|e| e.to_string())?);
        left -= length;
    }
    Ok(out)
}

/// The jumps that need no bytes, by (block, instruction): `None` for a
/// `jmp` to the block execution falls into anyway (the blocks between emit
/// no code), `Some(j!cc other)` for the `jcc` of `jcc that; jmp other`
/// when `that` is such a block (its `jmp` then `None`). The MIR keeps both
/// jumps, so every pass reading the final function still sees the same
/// control flow; only the bytes change (the encoding of the same paths).
fn fallthrough_jumps(f: &Function) -> FxHashMap<(usize, usize), Option<InstKind>> {
    let n = f.blocks.len();
    let code = |b: usize| -> Vec<usize> {
        let insts = &f.blocks[b].insts;
        (0..insts.len()).filter(|&i| !insts[i].is_debug()).collect()
    };
    // reached[b]: the block with code that execution reaches entering `b`.
    let mut reached = vec![n; n + 1];
    for b in (0..n).rev() {
        reached[b] = if code(b).is_empty() {
            reached[b + 1]
        } else {
            b
        };
    }
    let falls_to = |b: usize, target: BlockId| {
        let t = target.0 as usize;
        t > b && reached[t] == reached[b + 1]
    };
    let mut out = FxHashMap::default();
    for b in 0..n {
        let code = code(b);
        let Some(&last) = code.last() else { continue };
        let InstKind::Jmp { target: other } = f.blocks[b].insts[last].kind else {
            continue;
        };
        if falls_to(b, other) {
            out.insert((b, last), None);
            continue;
        }
        if let [.., jcc, _] = code[..] {
            if let InstKind::Jcc { cond, target } = f.blocks[b].insts[jcc].kind {
                if falls_to(b, target) {
                    let inverted = InstKind::Jcc {
                        cond: cond.invert(),
                        target: other,
                    };
                    out.insert((b, jcc), Some(inverted));
                    out.insert((b, last), None);
                }
            }
        }
    }
    out
}

fn iced(e: IcedError) -> String {
    e.to_string()
}

/// The iced register for `g` at `width`.
pub fn register(g: Gpr, width: Width) -> Register {
    use Register::*;
    const BYTE: [Register; 16] = [
        AL, CL, DL, BL, SPL, BPL, SIL, DIL, R8L, R9L, R10L, R11L, R12L, R13L, R14L, R15L,
    ];
    const WORD: [Register; 16] = [
        AX, CX, DX, BX, SP, BP, SI, DI, R8W, R9W, R10W, R11W, R12W, R13W, R14W, R15W,
    ];
    const DWORD: [Register; 16] = [
        EAX, ECX, EDX, EBX, ESP, EBP, ESI, EDI, R8D, R9D, R10D, R11D, R12D, R13D, R14D, R15D,
    ];
    const QWORD: [Register; 16] = [
        RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15,
    ];
    let table = match width {
        Width::W8 => &BYTE,
        Width::W16 => &WORD,
        Width::W32 => &DWORD,
        Width::W64 => &QWORD,
    };
    table[usize::from(g.hw())]
}

/// The iced register for xmm register `x`.
pub fn xmm_register(x: Xmm) -> Register {
    use Register::*;
    const XMM: [Register; 16] = [
        XMM0, XMM1, XMM2, XMM3, XMM4, XMM5, XMM6, XMM7, XMM8, XMM9, XMM10, XMM11, XMM12, XMM13,
        XMM14, XMM15,
    ];
    XMM[usize::from(x.hw())]
}

fn phys(reg: Reg) -> Result<Gpr, String> {
    match reg {
        Reg::Phys(PhysReg::Gpr(g)) => Ok(g),
        Reg::Phys(PhysReg::Xmm(x)) => Err(format!("{x} where a general-purpose register goes")),
        Reg::Virt(v) => Err(format!("virtual register {v} left after allocation")),
    }
}

fn xmm(reg: Reg) -> Result<Register, String> {
    match reg {
        Reg::Phys(PhysReg::Xmm(x)) => Ok(xmm_register(x)),
        Reg::Phys(PhysReg::Gpr(g)) => Err(format!("{g} where an xmm register goes")),
        Reg::Virt(v) => Err(format!("virtual register {v} left after allocation")),
    }
}

/// The iced code of an SSE instruction by precision: `[ss form, sd form]`.
fn by_size(size: FpSize, codes: [Code; 2]) -> Code {
    codes[match size {
        FpSize::F32 => 0,
        FpSize::F64 => 1,
    }]
}

/// The iced code of a 32- or 64-bit integer form: `[32-bit, 64-bit]`.
fn by_int_width(width: Width, codes: [Code; 2]) -> Result<Code, String> {
    match width {
        Width::W32 => Ok(codes[0]),
        Width::W64 => Ok(codes[1]),
        _ => Err("an SSE conversion or move takes a 32- or 64-bit integer".into()),
    }
}

/// The iced code of a packed SSE2 operation (`op xmm, xmm/m128`).
fn packed_code(op: PackedOp) -> Code {
    use Code::*;
    match op {
        PackedOp::AddB => Paddb_xmm_xmmm128,
        PackedOp::AddW => Paddw_xmm_xmmm128,
        PackedOp::AddD => Paddd_xmm_xmmm128,
        PackedOp::AddQ => Paddq_xmm_xmmm128,
        PackedOp::SubB => Psubb_xmm_xmmm128,
        PackedOp::SubW => Psubw_xmm_xmmm128,
        PackedOp::SubD => Psubd_xmm_xmmm128,
        PackedOp::SubQ => Psubq_xmm_xmmm128,
        PackedOp::MulLoW => Pmullw_xmm_xmmm128,
        PackedOp::MulUDq => Pmuludq_xmm_xmmm128,
        PackedOp::And => Pand_xmm_xmmm128,
        PackedOp::AndNot => Pandn_xmm_xmmm128,
        PackedOp::Or => Por_xmm_xmmm128,
        PackedOp::Xor => Pxor_xmm_xmmm128,
        PackedOp::CmpEqB => Pcmpeqb_xmm_xmmm128,
        PackedOp::CmpEqW => Pcmpeqw_xmm_xmmm128,
        PackedOp::CmpEqD => Pcmpeqd_xmm_xmmm128,
        PackedOp::CmpGtB => Pcmpgtb_xmm_xmmm128,
        PackedOp::CmpGtW => Pcmpgtw_xmm_xmmm128,
        PackedOp::CmpGtD => Pcmpgtd_xmm_xmmm128,
        PackedOp::UnpackLoBW => Punpcklbw_xmm_xmmm128,
        PackedOp::UnpackLoWD => Punpcklwd_xmm_xmmm128,
        PackedOp::UnpackLoDQ => Punpckldq_xmm_xmmm128,
        PackedOp::UnpackLoQDQ => Punpcklqdq_xmm_xmmm128,
        PackedOp::PackSsWB => Packsswb_xmm_xmmm128,
        PackedOp::PackSsDW => Packssdw_xmm_xmmm128,
        PackedOp::PackUsWB => Packuswb_xmm_xmmm128,
        PackedOp::UnpackHiBW => Punpckhbw_xmm_xmmm128,
        PackedOp::UnpackHiWD => Punpckhwd_xmm_xmmm128,
        PackedOp::UnpackHiDQ => Punpckhdq_xmm_xmmm128,
        PackedOp::UnpackHiQDQ => Punpckhqdq_xmm_xmmm128,
        PackedOp::MinUB => Pminub_xmm_xmmm128,
        PackedOp::MaxUB => Pmaxub_xmm_xmmm128,
        PackedOp::MinSW => Pminsw_xmm_xmmm128,
        PackedOp::MaxSW => Pmaxsw_xmm_xmmm128,
        PackedOp::AddUsB => Paddusb_xmm_xmmm128,
        PackedOp::AddUsW => Paddusw_xmm_xmmm128,
        PackedOp::SubUsB => Psubusb_xmm_xmmm128,
        PackedOp::SubUsW => Psubusw_xmm_xmmm128,
        PackedOp::AddSsB => Paddsb_xmm_xmmm128,
        PackedOp::AddSsW => Paddsw_xmm_xmmm128,
        PackedOp::SubSsB => Psubsb_xmm_xmmm128,
        PackedOp::SubSsW => Psubsw_xmm_xmmm128,
        PackedOp::CmpPs(_) => Cmpps_xmm_xmmm128_imm8,
        PackedOp::CmpPd(_) => Cmppd_xmm_xmmm128_imm8,
        PackedOp::ShufPs(_) => Shufps_xmm_xmmm128_imm8,
        PackedOp::CvtDq2Ps => Cvtdq2ps_xmm_xmmm128,
        PackedOp::CvtTPs2Dq => Cvttps2dq_xmm_xmmm128,
        PackedOp::CvtDq2Pd => Cvtdq2pd_xmm_xmmm64,
        PackedOp::CvtTPd2Dq => Cvttpd2dq_xmm_xmmm128,
        PackedOp::CvtPs2Dq => Cvtps2dq_xmm_xmmm128,
        PackedOp::CvtPd2Dq => Cvtpd2dq_xmm_xmmm128,
        PackedOp::SadBW => Psadbw_xmm_xmmm128,
        PackedOp::MaddWD => Pmaddwd_xmm_xmmm128,
        PackedOp::AvgB => Pavgb_xmm_xmmm128,
        PackedOp::AvgW => Pavgw_xmm_xmmm128,
        PackedOp::MulHiW => Pmulhw_xmm_xmmm128,
        PackedOp::MulHiUW => Pmulhuw_xmm_xmmm128,
        PackedOp::MinPs => Minps_xmm_xmmm128,
        PackedOp::MaxPs => Maxps_xmm_xmmm128,
        PackedOp::MinPd => Minpd_xmm_xmmm128,
        PackedOp::MaxPd => Maxpd_xmm_xmmm128,
        PackedOp::MinSs => Minss_xmm_xmmm32,
        PackedOp::MaxSs => Maxss_xmm_xmmm32,
        PackedOp::MinSd => Minsd_xmm_xmmm64,
        PackedOp::MaxSd => Maxsd_xmm_xmmm64,
        PackedOp::RsqrtPs => Rsqrtps_xmm_xmmm128,
        PackedOp::RcpPs => Rcpps_xmm_xmmm128,
        PackedOp::SqrtPs => Sqrtps_xmm_xmmm128,
        PackedOp::SqrtPd => Sqrtpd_xmm_xmmm128,
        PackedOp::RsqrtSs => Rsqrtss_xmm_xmmm32,
        PackedOp::RcpSs => Rcpss_xmm_xmmm32,
        PackedOp::ShlW => Psllw_xmm_xmmm128,
        PackedOp::ShlD => Pslld_xmm_xmmm128,
        PackedOp::ShlQ => Psllq_xmm_xmmm128,
        PackedOp::ShrW => Psrlw_xmm_xmmm128,
        PackedOp::ShrD => Psrld_xmm_xmmm128,
        PackedOp::ShrQ => Psrlq_xmm_xmmm128,
        PackedOp::SarW => Psraw_xmm_xmmm128,
        PackedOp::SarD => Psrad_xmm_xmmm128,
        PackedOp::CvtPs2Pd => Cvtps2pd_xmm_xmmm64,
        PackedOp::CvtPd2Ps => Cvtpd2ps_xmm_xmmm128,
        PackedOp::AddPs => Addps_xmm_xmmm128,
        PackedOp::SubPs => Subps_xmm_xmmm128,
        PackedOp::MulPs => Mulps_xmm_xmmm128,
        PackedOp::DivPs => Divps_xmm_xmmm128,
        PackedOp::AddPd => Addpd_xmm_xmmm128,
        PackedOp::SubPd => Subpd_xmm_xmmm128,
        PackedOp::MulPd => Mulpd_xmm_xmmm128,
        PackedOp::DivPd => Divpd_xmm_xmmm128,
    }
}

fn reg_at(reg: Reg, width: Width) -> Result<Register, String> {
    Ok(register(phys(reg)?, width))
}

fn fits_i8(imm: i32) -> bool {
    i8::try_from(imm).is_ok()
}

/// A register or memory operand, ready for iced.
enum Operand {
    Reg(Register),
    Mem(MemoryOperand),
}

impl Emitter<'_> {
    fn push(&mut self, instr: Result<Instruction, IcedError>) -> Result<(), String> {
        self.instrs.push(instr.map_err(iced)?);
        Ok(())
    }

    /// The iced memory operand for `addr`, registering its relocation (if
    /// any) against the instruction about to be pushed.
    fn mem(&mut self, addr: &Address) -> Result<MemoryOperand, String> {
        let index = match addr.index {
            Some((r, scale)) => (reg_at(r, Width::W64)?, u32::from(scale)),
            None => (Register::None, 1),
        };
        let disp = i64::from(addr.disp);
        let rip_relative = |kind, symbol| PendingReloc {
            instr: self.instrs.len(),
            kind,
            symbol,
            disp,
        };
        let pending = match &addr.base {
            AddressBase::Reg(r) => {
                let base = reg_at(*r, Width::W64)?;
                let displ_size = if disp == 0 { 0 } else { 1 };
                return Ok(MemoryOperand::new(
                    base,
                    index.0,
                    index.1,
                    disp,
                    displ_size,
                    false,
                    Register::None,
                ));
            }
            AddressBase::Symbol(name) => {
                rip_relative(RelocationKind::Pc32, Symbol::Named(name.clone()))
            }
            AddressBase::Got(name) => {
                if disp != 0 {
                    return Err("a GOT entry is read at displacement 0".into());
                }
                rip_relative(RelocationKind::GotPcRelX, Symbol::Named(name.clone()))
            }
            AddressBase::Constant(c) => match self.constant_places.get(c.0 as usize) {
                Some(&ConstantPlace::Literal(index)) => rip_relative(
                    RelocationKind::Pc32,
                    Symbol::Literal {
                        function: self.function_index,
                        index,
                    },
                ),
                Some(&ConstantPlace::Rodata(offset)) => PendingReloc {
                    disp: disp + i64::from(offset),
                    ..rip_relative(
                        RelocationKind::Pc32,
                        Symbol::FunctionData(self.function_index),
                    )
                },
                None => return Err("unknown constant-pool entry".into()),
            },
            AddressBase::JumpTable(t) => {
                let table = self.jump_table_offsets[t.0 as usize];
                PendingReloc {
                    disp: disp + i64::from(table),
                    ..rip_relative(
                        RelocationKind::Pc32,
                        Symbol::FunctionData(self.function_index),
                    )
                }
            }
            AddressBase::Slot(_) | AddressBase::IncomingArgs | AddressBase::OutgoingArgs => {
                return Err("frame address left after frame lowering".into())
            }
        };
        if index.0 != Register::None {
            return Err("a RIP-relative address takes no index".into());
        }
        self.relocs.push(pending);
        Ok(MemoryOperand::with_base_displ(Register::RIP, 0))
    }

    fn rm(&mut self, rm: &Rm, width: Width) -> Result<Operand, String> {
        Ok(match rm {
            Rm::Reg(r) => Operand::Reg(reg_at(*r, width)?),
            Rm::Mem(a) => Operand::Mem(self.mem(a)?),
        })
    }

    /// An xmm register or memory operand.
    fn xrm(&mut self, rm: &Rm) -> Result<Operand, String> {
        Ok(match rm {
            Rm::Reg(r) => Operand::Reg(xmm(*r)?),
            Rm::Mem(a) => Operand::Mem(self.mem(a)?),
        })
    }

    /// `code dst, src`: an xmm destination, an xmm or memory source.
    fn x_xrm(&mut self, code: Code, dst: Reg, src: &Rm) -> Result<(), String> {
        let d = xmm(dst)?;
        let s = self.xrm(src)?;
        self.r_rm(code, d, s)
    }

    fn lower_sse(&mut self, kind: &InstKind) -> Result<(), String> {
        use Code::*;
        match kind {
            InstKind::Copy { dst, src } => self.push(Instruction::with2(
                Movaps_xmm_xmmm128,
                xmm(*dst)?,
                xmm(*src)?,
            )),
            InstKind::FpLoad { dst, addr, size } => {
                let code = by_size(*size, [Movss_xmm_xmmm32, Movsd_xmm_xmmm64]);
                self.x_xrm(code, *dst, &Rm::Mem(addr.clone()))
            }
            InstKind::FpStore { src, addr, size } => {
                let code = by_size(*size, [Movss_xmmm32_xmm, Movsd_xmmm64_xmm]);
                let m = self.mem(addr)?;
                self.rm_r(code, Operand::Mem(m), xmm(*src)?)
            }
            InstKind::FpArith { op, size, dst, src } => {
                let codes = match op {
                    FpOp::Add => [Addss_xmm_xmmm32, Addsd_xmm_xmmm64],
                    FpOp::Sub => [Subss_xmm_xmmm32, Subsd_xmm_xmmm64],
                    FpOp::Mul => [Mulss_xmm_xmmm32, Mulsd_xmm_xmmm64],
                    FpOp::Div => [Divss_xmm_xmmm32, Divsd_xmm_xmmm64],
                    FpOp::Min => [Minss_xmm_xmmm32, Minsd_xmm_xmmm64],
                    FpOp::Max => [Maxss_xmm_xmmm32, Maxsd_xmm_xmmm64],
                };
                self.x_xrm(by_size(*size, codes), *dst, src)
            }
            InstKind::FpSqrt { size, dst, src } => {
                let code = by_size(*size, [Sqrtss_xmm_xmmm32, Sqrtsd_xmm_xmmm64]);
                self.x_xrm(code, *dst, src)
            }
            InstKind::FpLogic { op, dst, src } => {
                let code = match op {
                    FpLogicOp::And => Andps_xmm_xmmm128,
                    FpLogicOp::AndNot => Andnps_xmm_xmmm128,
                    FpLogicOp::Or => Orps_xmm_xmmm128,
                    FpLogicOp::Xor => Xorps_xmm_xmmm128,
                };
                self.push(Instruction::with2(code, xmm(*dst)?, xmm(*src)?))
            }
            InstKind::FpCmp {
                size,
                lhs,
                rhs,
                signaling,
            } => {
                let codes = if *signaling {
                    [Comiss_xmm_xmmm32, Comisd_xmm_xmmm64]
                } else {
                    [Ucomiss_xmm_xmmm32, Ucomisd_xmm_xmmm64]
                };
                self.x_xrm(by_size(*size, codes), *lhs, rhs)
            }
            InstKind::FpCmpMask {
                size,
                predicate,
                dst,
                src,
            } => {
                let code = by_size(*size, [Cmpss_xmm_xmmm32_imm8, Cmpsd_xmm_xmmm64_imm8]);
                let d = xmm(*dst)?;
                let imm = *predicate as u32;
                match self.xrm(src)? {
                    Operand::Reg(s) => self.push(Instruction::with3(code, d, s, imm)),
                    Operand::Mem(m) => self.push(Instruction::with3(code, d, m, imm)),
                }
            }
            InstKind::IntToFp {
                size,
                width,
                dst,
                src,
            } => {
                let codes = match size {
                    FpSize::F32 => [Cvtsi2ss_xmm_rm32, Cvtsi2ss_xmm_rm64],
                    FpSize::F64 => [Cvtsi2sd_xmm_rm32, Cvtsi2sd_xmm_rm64],
                };
                let code = by_int_width(*width, codes)?;
                let s = self.rm(src, *width)?;
                self.r_rm(code, xmm(*dst)?, s)
            }
            InstKind::FpToInt {
                size,
                width,
                rounded,
                dst,
                src,
            } => {
                let codes = match (size, rounded) {
                    (FpSize::F32, false) => [Cvttss2si_r32_xmmm32, Cvttss2si_r64_xmmm32],
                    (FpSize::F64, false) => [Cvttsd2si_r32_xmmm64, Cvttsd2si_r64_xmmm64],
                    (FpSize::F32, true) => [Cvtss2si_r32_xmmm32, Cvtss2si_r64_xmmm32],
                    (FpSize::F64, true) => [Cvtsd2si_r32_xmmm64, Cvtsd2si_r64_xmmm64],
                };
                let code = by_int_width(*width, codes)?;
                let d = reg_at(*dst, *width)?;
                let s = self.xrm(src)?;
                self.r_rm(code, d, s)
            }
            InstKind::FpConvert { from, dst, src } => {
                let code = by_size(*from, [Cvtss2sd_xmm_xmmm32, Cvtsd2ss_xmm_xmmm64]);
                self.x_xrm(code, *dst, src)
            }
            InstKind::MovToXmm { width, dst, src } => {
                let code = by_int_width(*width, [Movd_xmm_rm32, Movq_xmm_rm64])?;
                let s = self.rm(src, *width)?;
                self.r_rm(code, xmm(*dst)?, s)
            }
            InstKind::MovFromXmm { width, dst, src } => {
                let code = by_int_width(*width, [Movd_rm32_xmm, Movq_rm64_xmm])?;
                let d = reg_at(*dst, *width)?;
                self.push(Instruction::with2(code, d, xmm(*src)?))
            }
            InstKind::XmmZero { dst } => {
                let d = xmm(*dst)?;
                self.push(Instruction::with2(Pxor_xmm_xmmm128, d, d))
            }
            InstKind::VecLoad { dst, addr, bytes } => {
                let code = match bytes {
                    4 => Movd_xmm_rm32,
                    8 => Movq_xmm_xmmm64,
                    16 => Movdqu_xmm_xmmm128,
                    _ => return Err("a vector load moves 4, 8 or 16 bytes".into()),
                };
                self.x_xrm(code, *dst, &Rm::Mem(addr.clone()))
            }
            InstKind::VecStore { src, addr, bytes } => {
                let code = match bytes {
                    4 => Movd_rm32_xmm,
                    8 => Movq_xmmm64_xmm,
                    16 => Movdqu_xmmm128_xmm,
                    _ => return Err("a vector store moves 4, 8 or 16 bytes".into()),
                };
                let m = self.mem(addr)?;
                self.rm_r(code, Operand::Mem(m), xmm(*src)?)
            }
            InstKind::Packed { op, dst, src } => {
                let code = packed_code(*op);
                let imm = match op {
                    PackedOp::CmpPs(p) | PackedOp::CmpPd(p) => Some(*p as u32),
                    PackedOp::ShufPs(imm) => Some(u32::from(*imm)),
                    _ => None,
                };
                match imm {
                    Some(imm) => self.push(Instruction::with3(code, xmm(*dst)?, xmm(*src)?, imm)),
                    None => self.push(Instruction::with2(code, xmm(*dst)?, xmm(*src)?)),
                }
            }
            InstKind::PackedShiftImm { op, dst, imm } => {
                let code = match op {
                    PackedShift::LeftW => Psllw_xmm_imm8,
                    PackedShift::LeftD => Pslld_xmm_imm8,
                    PackedShift::LeftQ => Psllq_xmm_imm8,
                    PackedShift::RightW => Psrlw_xmm_imm8,
                    PackedShift::RightD => Psrld_xmm_imm8,
                    PackedShift::RightQ => Psrlq_xmm_imm8,
                    PackedShift::ArithW => Psraw_xmm_imm8,
                    PackedShift::ArithD => Psrad_xmm_imm8,
                    PackedShift::LeftBytes => Pslldq_xmm_imm8,
                    PackedShift::RightBytes => Psrldq_xmm_imm8,
                };
                self.push(Instruction::with2(code, xmm(*dst)?, u32::from(*imm)))
            }
            InstKind::PackedShuffleImm { op, dst, src, imm } => {
                let code = match op {
                    PackedShuffle::Dwords => Pshufd_xmm_xmmm128_imm8,
                    PackedShuffle::LowWords => Pshuflw_xmm_xmmm128_imm8,
                    PackedShuffle::HighWords => Pshufhw_xmm_xmmm128_imm8,
                };
                self.push(Instruction::with3(
                    code,
                    xmm(*dst)?,
                    xmm(*src)?,
                    u32::from(*imm),
                ))
            }
            InstKind::MoveMask { dst, src } => self.push(Instruction::with2(
                Pmovmskb_r32_xmm,
                reg_at(*dst, Width::W32)?,
                xmm(*src)?,
            )),
            _ => Err("not an SSE instruction".into()),
        }
    }

    /// `code dst, src` where `src` is a register or memory operand.
    fn r_rm(&mut self, code: Code, dst: Register, src: Operand) -> Result<(), String> {
        match src {
            Operand::Reg(s) => self.push(Instruction::with2(code, dst, s)),
            Operand::Mem(m) => self.push(Instruction::with2(code, dst, m)),
        }
    }

    /// `code dst` where `dst` is a register or memory operand.
    fn one(&mut self, code: Code, op: Operand) -> Result<(), String> {
        match op {
            Operand::Reg(r) => self.push(Instruction::with1(code, r)),
            Operand::Mem(m) => self.push(Instruction::with1(code, m)),
        }
    }

    /// `code dst, imm` where `dst` is a register or memory operand.
    fn rm_imm(&mut self, code: Code, op: Operand, imm: i32) -> Result<(), String> {
        match op {
            Operand::Reg(r) => self.push(Instruction::with2(code, r, imm)),
            Operand::Mem(m) => self.push(Instruction::with2(code, m, imm)),
        }
    }

    /// `code dst, src` where `dst` is a register or memory operand and
    /// `src` a register.
    fn rm_r(&mut self, code: Code, dst: Operand, src: Register) -> Result<(), String> {
        match dst {
            Operand::Reg(r) => self.push(Instruction::with2(code, r, src)),
            Operand::Mem(m) => self.push(Instruction::with2(code, m, src)),
        }
    }

    fn alu_like(
        &mut self,
        codes: &codes::AluCodes,
        width: Width,
        lhs: Operand,
        rhs: &Rmi,
    ) -> Result<(), String> {
        let w = wi(width);
        match (lhs, rhs) {
            (Operand::Reg(d), Rmi::Reg(s)) => {
                self.r_rm(codes.r_rm[w], d, Operand::Reg(reg_at(*s, width)?))
            }
            (Operand::Reg(d), Rmi::Mem(a)) => {
                let m = self.mem(a)?;
                self.r_rm(codes.r_rm[w], d, Operand::Mem(m))
            }
            (Operand::Mem(m), Rmi::Reg(s)) => {
                self.rm_r(codes.rm_r[w], Operand::Mem(m), reg_at(*s, width)?)
            }
            (Operand::Mem(_), Rmi::Mem(_)) => Err("two memory operands".into()),
            (lhs, Rmi::Imm(imm)) => {
                let code = if width != Width::W8 && fits_i8(*imm) {
                    codes.rm_imm8[w]
                } else {
                    codes.rm_imm[w]
                };
                self.rm_imm(code, lhs, *imm)
            }
        }
    }

    fn branch(&mut self, code: Code, target: BlockId) -> Result<(), String> {
        self.branches.push((self.instrs.len(), target));
        self.push(Instruction::with_branch(code, LABEL_BASE))
    }

    /// An x87 sequence, its stack depth checked step by step: never more
    /// than eight values, never a step reading more than are there, and
    /// `stack_out` values at the end.
    fn lower_x87(&mut self, steps: &[X87Step], stack_in: u8, stack_out: u8) -> Result<(), String> {
        use Code::*;
        let mut depth = i32::from(stack_in);
        for step in steps {
            if depth < step.stack_reads() || depth + step.stack_effect() > 8 {
                return Err(format!("x87 stack out of bounds at {step:?}"));
            }
            depth += step.stack_effect();
            let (st0, st1) = (Register::ST0, Register::ST1);
            match step {
                X87Step::Load(addr, format) => {
                    let code = match format {
                        X87Format::F32 => Fld_m32fp,
                        X87Format::F64 => Fld_m64fp,
                        X87Format::F80 => Fld_m80fp,
                    };
                    let m = self.mem(addr)?;
                    self.push(Instruction::with1(code, m))?;
                }
                X87Step::LoadInt(addr, width) => {
                    let code = match width {
                        Width::W16 => Fild_m16int,
                        Width::W32 => Fild_m32int,
                        Width::W64 => Fild_m64int,
                        Width::W8 => return Err("fild of a byte".into()),
                    };
                    let m = self.mem(addr)?;
                    self.push(Instruction::with1(code, m))?;
                }
                X87Step::Store(addr, format) => {
                    let code = match format {
                        X87Format::F32 => Fstp_m32fp,
                        X87Format::F64 => Fstp_m64fp,
                        X87Format::F80 => Fstp_m80fp,
                    };
                    let m = self.mem(addr)?;
                    self.push(Instruction::with1(code, m))?;
                }
                X87Step::StoreIntTruncated {
                    addr,
                    width,
                    control,
                } => {
                    let code = match width {
                        Width::W16 => Fistp_m16int,
                        Width::W32 => Fistp_m32int,
                        Width::W64 => Fistp_m64int,
                        Width::W8 => return Err("fistp of a byte".into()),
                    };
                    let mut chop = control.clone();
                    chop.disp += 2;
                    let m = self.mem(control)?;
                    self.push(Instruction::with1(Fnstcw_m2byte, m))?;
                    let m = self.mem(&chop)?;
                    self.push(Instruction::with1(Fnstcw_m2byte, m))?;
                    let m = self.mem(&chop)?;
                    self.push(Instruction::with2(Or_rm16_imm16, m, 0xc00u32))?;
                    let m = self.mem(&chop)?;
                    self.push(Instruction::with1(Fldcw_m2byte, m))?;
                    let m = self.mem(addr)?;
                    self.push(Instruction::with1(code, m))?;
                    let m = self.mem(control)?;
                    self.push(Instruction::with1(Fldcw_m2byte, m))?;
                }
                X87Step::Arith(op) => {
                    let code = match op {
                        FpOp::Add => Faddp_sti_st0,
                        FpOp::Sub => Fsubp_sti_st0,
                        FpOp::Mul => Fmulp_sti_st0,
                        FpOp::Div => Fdivp_sti_st0,
                        FpOp::Min | FpOp::Max => return Err(format!("x87 has no {op:?}")),
                    };
                    self.push(Instruction::with2(code, st1, st0))?;
                }
                X87Step::Sqrt => self.push(Ok(Instruction::with(Fsqrt)))?,
                X87Step::Compare => {
                    self.push(Instruction::with2(Fucomip_st0_sti, st0, st1))?;
                    self.push(Instruction::with1(Fstp_sti, st0))?;
                }
                X87Step::Pop => self.push(Instruction::with1(Fstp_sti, st0))?,
                X87Step::Examine(addr) => {
                    self.push(Ok(Instruction::with(Fxam)))?;
                    let m = self.mem(addr)?;
                    self.push(Instruction::with1(Fnstsw_m2byte, m))?;
                    self.push(Instruction::with1(Fstp_sti, st0))?;
                }
            }
        }
        if depth != i32::from(stack_out) {
            return Err(format!(
                "x87 sequence leaves {depth} values, not {stack_out}"
            ));
        }
        Ok(())
    }

    fn lower(&mut self, kind: &InstKind) -> Result<(), String> {
        match kind {
            InstKind::Copy {
                dst: dst @ Reg::Phys(PhysReg::Gpr(_)),
                src,
            } => self.push(Instruction::with2(
                Code::Mov_r64_rm64,
                reg_at(*dst, Width::W64)?,
                reg_at(*src, Width::W64)?,
            )),
            InstKind::Copy { .. }
            | InstKind::FpLoad { .. }
            | InstKind::FpStore { .. }
            | InstKind::FpArith { .. }
            | InstKind::FpSqrt { .. }
            | InstKind::FpLogic { .. }
            | InstKind::FpCmp { .. }
            | InstKind::FpCmpMask { .. }
            | InstKind::IntToFp { .. }
            | InstKind::FpToInt { .. }
            | InstKind::FpConvert { .. }
            | InstKind::MovToXmm { .. }
            | InstKind::MovFromXmm { .. }
            | InstKind::XmmZero { .. }
            | InstKind::VecLoad { .. }
            | InstKind::VecStore { .. }
            | InstKind::Packed { .. }
            | InstKind::PackedShiftImm { .. }
            | InstKind::PackedShuffleImm { .. }
            | InstKind::MoveMask { .. } => self.lower_sse(kind),
            InstKind::MovImm { dst, imm, width } => {
                let g = phys(*dst)?;
                let imm = *imm;
                match width {
                    Width::W8 => self.push(Instruction::with2(
                        Code::Mov_r8_imm8,
                        register(g, Width::W8),
                        u32::from(imm as u8),
                    )),
                    Width::W16 => self.push(Instruction::with2(
                        Code::Mov_r16_imm16,
                        register(g, Width::W16),
                        u32::from(imm as u16),
                    )),
                    // A 32-bit write zero-extends: also the short form of a
                    // 64-bit constant below 2^32.
                    Width::W32 | Width::W64
                        if *width == Width::W32 || u32::try_from(imm).is_ok() =>
                    {
                        self.push(Instruction::with2(
                            Code::Mov_r32_imm32,
                            register(g, Width::W32),
                            imm as u32,
                        ))
                    }
                    Width::W64 if i32::try_from(imm).is_ok() => self.push(Instruction::with2(
                        Code::Mov_rm64_imm32,
                        register(g, Width::W64),
                        imm as i32,
                    )),
                    Width::W32 | Width::W64 => self.push(Instruction::with2(
                        Code::Mov_r64_imm64,
                        register(g, Width::W64),
                        imm as u64,
                    )),
                }
            }
            InstKind::Load { dst, addr, width } => {
                const CODES: [Code; 4] = [
                    Code::Mov_r8_rm8,
                    Code::Mov_r16_rm16,
                    Code::Mov_r32_rm32,
                    Code::Mov_r64_rm64,
                ];
                let m = self.mem(addr)?;
                self.r_rm(CODES[wi(*width)], reg_at(*dst, *width)?, Operand::Mem(m))
            }
            InstKind::Store { src, addr, width } => {
                let m = self.mem(addr)?;
                match src {
                    Ri::Reg(r) => {
                        const CODES: [Code; 4] = [
                            Code::Mov_rm8_r8,
                            Code::Mov_rm16_r16,
                            Code::Mov_rm32_r32,
                            Code::Mov_rm64_r64,
                        ];
                        self.rm_r(CODES[wi(*width)], Operand::Mem(m), reg_at(*r, *width)?)
                    }
                    Ri::Imm(imm) => {
                        const CODES: [Code; 4] = [
                            Code::Mov_rm8_imm8,
                            Code::Mov_rm16_imm16,
                            Code::Mov_rm32_imm32,
                            Code::Mov_rm64_imm32,
                        ];
                        self.rm_imm(CODES[wi(*width)], Operand::Mem(m), *imm)
                    }
                }
            }
            InstKind::Extend {
                dst,
                src,
                from,
                to,
                signed,
            } => {
                use Width::*;
                let (code, dst_width) = match (signed, from, to) {
                    (false, W8, W16) => (Code::Movzx_r16_rm8, W16),
                    (false, W8, W32 | W64) => (Code::Movzx_r32_rm8, W32),
                    (false, W16, W32 | W64) => (Code::Movzx_r32_rm16, W32),
                    (false, W32, W64) => (Code::Mov_r32_rm32, W32),
                    (true, W8, W16) => (Code::Movsx_r16_rm8, W16),
                    (true, W8, W32) => (Code::Movsx_r32_rm8, W32),
                    (true, W8, W64) => (Code::Movsx_r64_rm8, W64),
                    (true, W16, W32) => (Code::Movsx_r32_rm16, W32),
                    (true, W16, W64) => (Code::Movsx_r64_rm16, W64),
                    (true, W32, W64) => (Code::Movsxd_r64_rm32, W64),
                    _ => return Err("extension must widen".into()),
                };
                let s = self.rm(src, *from)?;
                self.r_rm(code, reg_at(*dst, dst_width)?, s)
            }
            InstKind::Lea { dst, addr } => {
                let m = self.mem(addr)?;
                self.r_rm(Code::Lea_r64_m, reg_at(*dst, Width::W64)?, Operand::Mem(m))
            }
            InstKind::Lea32 { dst, addr } => {
                let m = self.mem(addr)?;
                self.r_rm(Code::Lea_r32_m, reg_at(*dst, Width::W32)?, Operand::Mem(m))
            }
            InstKind::Alu {
                op,
                width,
                dst,
                src,
            } => {
                let d = Operand::Reg(reg_at(*dst, *width)?);
                self.alu_like(&codes::alu(*op), *width, d, src)
            }
            InstKind::AluMem {
                op,
                width,
                addr,
                src,
            } => {
                let m = self.mem(addr)?;
                let src = match src {
                    Ri::Reg(r) => Rmi::Reg(*r),
                    Ri::Imm(imm) => Rmi::Imm(*imm),
                };
                self.alu_like(&codes::alu(*op), *width, Operand::Mem(m), &src)
            }
            InstKind::Imul { width, dst, src } => {
                const CODES: [Code; 4] = [
                    Code::INVALID,
                    Code::Imul_r16_rm16,
                    Code::Imul_r32_rm32,
                    Code::Imul_r64_rm64,
                ];
                let code = valid(CODES[wi(*width)], "imul has no 8-bit two-operand form")?;
                let s = self.rm(src, *width)?;
                self.r_rm(code, reg_at(*dst, *width)?, s)
            }
            InstKind::ImulImm {
                width,
                dst,
                src,
                imm,
            } => {
                const IMM8: [Code; 4] = [
                    Code::INVALID,
                    Code::Imul_r16_rm16_imm8,
                    Code::Imul_r32_rm32_imm8,
                    Code::Imul_r64_rm64_imm8,
                ];
                const IMM: [Code; 4] = [
                    Code::INVALID,
                    Code::Imul_r16_rm16_imm16,
                    Code::Imul_r32_rm32_imm32,
                    Code::Imul_r64_rm64_imm32,
                ];
                let table = if fits_i8(*imm) { &IMM8 } else { &IMM };
                let code = valid(table[wi(*width)], "imul has no 8-bit immediate form")?;
                let d = reg_at(*dst, *width)?;
                let imm = *imm;
                match self.rm(src, *width)? {
                    Operand::Reg(s) => self.push(Instruction::with3(code, d, s, imm)),
                    Operand::Mem(m) => self.push(Instruction::with3(code, d, m, imm)),
                }
            }
            InstKind::Shift {
                op,
                width,
                dst,
                amount,
            } => {
                let (cl, imm8) = codes::shift(*op);
                let d = reg_at(*dst, *width)?;
                match amount {
                    ShiftAmount::Cl => {
                        self.push(Instruction::with2(cl[wi(*width)], d, Register::CL))
                    }
                    ShiftAmount::Imm(n) => {
                        self.push(Instruction::with2(imm8[wi(*width)], d, u32::from(*n)))
                    }
                }
            }
            InstKind::Unary { op, width, dst } => {
                let code = valid(codes::unary(*op)[wi(*width)], "bswap is 32 or 64 bits")?;
                self.push(Instruction::with1(code, reg_at(*dst, *width)?))
            }
            // `test r, r` sets the flags as `cmp r, 0` does (CF = OF = 0,
            // ZF, SF and PF from r) in fewer bytes.
            InstKind::Cmp {
                width,
                lhs: Rm::Reg(r),
                rhs: Rmi::Imm(0),
            } => {
                const CODES: [Code; 4] = [
                    Code::Test_rm8_r8,
                    Code::Test_rm16_r16,
                    Code::Test_rm32_r32,
                    Code::Test_rm64_r64,
                ];
                let r = reg_at(*r, *width)?;
                self.rm_r(CODES[wi(*width)], Operand::Reg(r), r)
            }
            InstKind::Cmp { width, lhs, rhs } => {
                let l = self.rm(lhs, *width)?;
                self.alu_like(&codes::cmp(), *width, l, rhs)
            }
            InstKind::Test { width, lhs, rhs } => {
                let l = self.rm(lhs, *width)?;
                match rhs {
                    Ri::Reg(r) => {
                        const CODES: [Code; 4] = [
                            Code::Test_rm8_r8,
                            Code::Test_rm16_r16,
                            Code::Test_rm32_r32,
                            Code::Test_rm64_r64,
                        ];
                        self.rm_r(CODES[wi(*width)], l, reg_at(*r, *width)?)
                    }
                    Ri::Imm(imm) => {
                        const CODES: [Code; 4] = [
                            Code::Test_rm8_imm8,
                            Code::Test_rm16_imm16,
                            Code::Test_rm32_imm32,
                            Code::Test_rm64_imm32,
                        ];
                        self.rm_imm(CODES[wi(*width)], l, *imm)
                    }
                }
            }
            InstKind::Bt { width, base, bit } => {
                const CODES: [Code; 4] = [
                    Code::INVALID,
                    Code::Bt_rm16_r16,
                    Code::Bt_rm32_r32,
                    Code::Bt_rm64_r64,
                ];
                let code = valid(CODES[wi(*width)], "8-bit bit tests do not exist")?;
                self.rm_r(
                    code,
                    Operand::Reg(reg_at(*base, *width)?),
                    reg_at(*bit, *width)?,
                )
            }
            InstKind::Setcc { cond, dst } => {
                let (_, set, _) = codes::cond(*cond);
                self.push(Instruction::with1(set, reg_at(*dst, Width::W8)?))
            }
            InstKind::Cmov {
                cond,
                width,
                dst,
                src,
            } => {
                let (_, _, cmov) = codes::cond(*cond);
                if *width == Width::W8 {
                    return Err("cmov has no 8-bit form".into());
                }
                let s = self.rm(src, *width)?;
                self.r_rm(cmov[wi(*width) - 1], reg_at(*dst, *width)?, s)
            }
            InstKind::SignExtendAx { width } => {
                const CODES: [Code; 4] = [Code::INVALID, Code::Cwd, Code::Cdq, Code::Cqo];
                let code = valid(CODES[wi(*width)], "no 8-bit sign extension into rdx")?;
                self.push(Ok(Instruction::with(code)))
            }
            InstKind::Div {
                signed,
                width,
                divisor,
            } => {
                const DIV: [Code; 4] = [
                    Code::INVALID,
                    Code::Div_rm16,
                    Code::Div_rm32,
                    Code::Div_rm64,
                ];
                const IDIV: [Code; 4] = [
                    Code::INVALID,
                    Code::Idiv_rm16,
                    Code::Idiv_rm32,
                    Code::Idiv_rm64,
                ];
                let table = if *signed { &IDIV } else { &DIV };
                let code = valid(table[wi(*width)], "8-bit division is not supported")?;
                let d = self.rm(divisor, *width)?;
                self.one(code, d)
            }
            InstKind::Call { target, .. } => match target {
                CallTarget::Symbol(name) => {
                    self.relocs.push(PendingReloc {
                        instr: self.instrs.len(),
                        kind: RelocationKind::Plt32,
                        symbol: Symbol::Named(name.clone()),
                        disp: 0,
                    });
                    // Any in-range target; the relocation supplies the real one.
                    self.push(Instruction::with_branch(Code::Call_rel32_64, 0))
                }
                CallTarget::Reg(r) => {
                    self.push(Instruction::with1(Code::Call_rm64, reg_at(*r, Width::W64)?))
                }
            },
            InstKind::Jcc { cond, target } => {
                let (jcc, _, _) = codes::cond(*cond);
                self.branch(jcc, *target)
            }
            InstKind::Jmp { target } => self.branch(Code::Jmp_rel32_64, *target),
            InstKind::JmpIndirect { target, table } => {
                if table.0 as usize >= self.function.jump_tables.len() {
                    return Err("unknown jump table".into());
                }
                self.push(Instruction::with1(
                    Code::Jmp_rm64,
                    reg_at(*target, Width::W64)?,
                ))
            }
            InstKind::Ret { .. } => self.push(Ok(Instruction::with(Code::Retnq))),
            InstKind::TailJump { target, .. } => match target {
                CallTarget::Symbol(name) => {
                    self.relocs.push(PendingReloc {
                        instr: self.instrs.len(),
                        kind: RelocationKind::Plt32,
                        symbol: Symbol::Named(name.clone()),
                        disp: 0,
                    });
                    // A target no short jump reaches keeps the rel32 form
                    // the relocation fills in.
                    self.push(Instruction::with_branch(Code::Jmp_rel32_64, 1 << 30))
                }
                CallTarget::Reg(r) => {
                    self.push(Instruction::with1(Code::Jmp_rm64, reg_at(*r, Width::W64)?))
                }
            },
            InstKind::Ud2 => self.push(Ok(Instruction::with(Code::Ud2))),
            InstKind::X87 {
                steps,
                stack_in,
                stack_out,
            } => self.lower_x87(steps, *stack_in, *stack_out),
            InstKind::Trap { breakpoint } => self.push(Ok(Instruction::with(if *breakpoint {
                Code::Int3
            } else {
                Code::Ud2
            }))),
            InstKind::BitScan {
                reverse,
                width,
                dst,
                src,
            } => {
                const BSF: [Code; 4] = [
                    Code::INVALID,
                    Code::Bsf_r16_rm16,
                    Code::Bsf_r32_rm32,
                    Code::Bsf_r64_rm64,
                ];
                const BSR: [Code; 4] = [
                    Code::INVALID,
                    Code::Bsr_r16_rm16,
                    Code::Bsr_r32_rm32,
                    Code::Bsr_r64_rm64,
                ];
                let table = if *reverse { &BSR } else { &BSF };
                let code = valid(table[wi(*width)], "8-bit bit scans do not exist")?;
                let d = reg_at(*dst, *width)?;
                match self.rm(src, *width)? {
                    Operand::Reg(r) => self.push(Instruction::with2(code, d, r)),
                    Operand::Mem(m) => self.push(Instruction::with2(code, d, m)),
                }
            }
            InstKind::InlineAsm(asm) => self.inline_asm(asm),
            InstKind::ThreadLocal {
                access,
                symbol,
                dst,
                base,
            } => self.thread_local(*access, symbol, *dst, *base),
            InstKind::MulWide { width, src } => {
                const MUL: [Code; 4] = [
                    Code::INVALID,
                    Code::Mul_rm16,
                    Code::Mul_rm32,
                    Code::Mul_rm64,
                ];
                let code = valid(MUL[wi(*width)], "8-bit widening multiply is not supported")?;
                let s = self.rm(src, *width)?;
                self.one(code, s)
            }
            InstKind::Push { reg } => self.push(Instruction::with1(
                Code::Push_r64,
                register(*reg, Width::W64),
            )),
            InstKind::Pop { reg } => self.push(Instruction::with1(
                Code::Pop_r64,
                register(*reg, Width::W64),
            )),
            InstKind::DbgValue(_) => Ok(()),
        }
    }
}

impl Emitter<'_> {
    /// Encodes the instructions of an inline asm statement, its operand
    /// registers as allocated.
    fn inline_asm(&mut self, asm: &crate::codegen::mir::InlineAsm) -> Result<(), String> {
        use crate::codegen::mir::AsmOperand;
        let first = self.instrs.len();
        self.alignments
            .extend(asm.alignments.iter().map(|&(i, bytes)| (first + i, bytes)));
        for instr in &asm.instrs {
            let mut ops: Vec<Operand> = Vec::with_capacity(instr.operands.len());
            let mut imm = None;
            for op in &instr.operands {
                match op {
                    AsmOperand::Reg { index, width } => {
                        let (r, _) = asm
                            .regs
                            .get(*index)
                            .ok_or("inline asm operand out of range")?;
                        ops.push(Operand::Reg(reg_at(*r, *width)?));
                    }
                    AsmOperand::Fixed(g, width) => ops.push(Operand::Reg(register(*g, *width))),
                    AsmOperand::Mem(a) => ops.push(Operand::Mem(self.mem(a)?)),
                    AsmOperand::Imm(i) => {
                        imm = Some(i32::try_from(*i).map_err(|_| "inline asm immediate too large")?)
                    }
                }
            }
            let code = instr.code;
            let built = match (ops.as_slice(), imm) {
                ([], None) => Ok(Instruction::with(code)),
                ([Operand::Reg(r)], None) => Instruction::with1(code, *r),
                ([Operand::Mem(m)], None) => Instruction::with1(code, *m),
                ([Operand::Reg(a), Operand::Reg(b)], None) => Instruction::with2(code, *a, *b),
                ([Operand::Mem(a), Operand::Reg(b)], None) => Instruction::with2(code, *a, *b),
                ([Operand::Reg(a), Operand::Mem(b)], None) => Instruction::with2(code, *a, *b),
                ([Operand::Reg(a)], Some(i)) => Instruction::with2(code, *a, i),
                ([Operand::Mem(a)], Some(i)) => Instruction::with2(code, *a, i),
                _ => return Err(format!("inline asm operands of {code:?} do not fit")),
            };
            let mut built = built.map_err(iced)?;
            if instr.lock {
                built.set_has_lock_prefix(true);
            }
            self.instrs.push(built);
        }
        Ok(())
    }
}

impl Emitter<'_> {
    /// The instructions of one TLS access sequence (see [`TlsAccess`]), in
    /// the forms the linker recognises and relaxes; the operand-size and
    /// REX prefixes that pad the general-dynamic sequence to its fixed
    /// length are data bytes before iced's `lea` and `call`.
    fn thread_local(
        &mut self,
        access: TlsAccess,
        symbol: &str,
        dst: Option<Reg>,
        base: Option<Reg>,
    ) -> Result<(), String> {
        let reloc = |instr, kind| PendingReloc {
            instr,
            kind,
            symbol: Symbol::Named(symbol.to_string()),
            disp: 0,
        };
        let rip = MemoryOperand::with_base_displ(Register::RIP, 0);
        let dst = || phys(dst.ok_or("a TLS address without a destination")?);
        match access {
            TlsAccess::GeneralDynamic | TlsAccess::LocalDynamicBlock => {
                let general = access == TlsAccess::GeneralDynamic;
                if general {
                    self.instrs.push(Instruction::with_declare_byte_1(0x66));
                }
                let kind = if general {
                    RelocationKind::TlsGd
                } else {
                    RelocationKind::TlsLd
                };
                self.relocs.push(reloc(self.instrs.len(), kind));
                self.push(Instruction::with2(Code::Lea_r64_m, Register::RDI, rip))?;
                if general {
                    self.instrs
                        .push(Instruction::with_declare_byte_3(0x66, 0x66, 0x48));
                }
                self.relocs.push(PendingReloc {
                    symbol: Symbol::Named(TLS_GET_ADDR.into()),
                    ..reloc(self.instrs.len(), RelocationKind::Plt32)
                });
                self.push(Instruction::with_branch(Code::Call_rel32_64, 0))
            }
            TlsAccess::LocalDynamicOffset => {
                let base = base.ok_or("a local-dynamic offset without its block")?;
                let base = reg_at(base, Width::W64)?;
                let d = register(dst()?, Width::W64);
                self.relocs
                    .push(reloc(self.instrs.len(), RelocationKind::DtpOff32));
                let m =
                    MemoryOperand::new(base, Register::None, 1, 0, DISP32, false, Register::None);
                self.push(Instruction::with2(Code::Lea_r64_m, d, m))
            }
            TlsAccess::InitialExec | TlsAccess::LocalExec | TlsAccess::ThreadPointer => {
                let d = register(dst()?, Width::W64);
                let thread_pointer = MemoryOperand::new(
                    Register::None,
                    Register::None,
                    1,
                    0,
                    DISP32,
                    false,
                    Register::FS,
                );
                self.push(Instruction::with2(Code::Mov_r64_rm64, d, thread_pointer))?;
                if access == TlsAccess::ThreadPointer {
                    Ok(())
                } else if access == TlsAccess::InitialExec {
                    self.relocs
                        .push(reloc(self.instrs.len(), RelocationKind::GotTpOff));
                    self.push(Instruction::with2(Code::Add_r64_rm64, d, rip))
                } else {
                    self.relocs
                        .push(reloc(self.instrs.len(), RelocationKind::TpOff32));
                    let m =
                        MemoryOperand::new(d, Register::None, 1, 0, DISP32, false, Register::None);
                    self.push(Instruction::with2(Code::Lea_r64_m, d, m))
                }
            }
        }
    }
}

/// iced's displacement size that forces a 32-bit displacement under 64-bit
/// addressing (the field a TLS relocation fills).
const DISP32: u32 = 8;

/// The function general- and local-dynamic TLS accesses call.
const TLS_GET_ADDR: &str = "__tls_get_addr";

fn valid(code: Code, message: &str) -> Result<Code, String> {
    if code == Code::INVALID {
        Err(message.to_string())
    } else {
        Ok(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each padding length is one `nop` of exactly that many bytes (up to
    /// 9), longer ones several; the decoder reads them back as `nop`s.
    #[test]
    fn padding_is_nops_of_the_asked_length() {
        for bytes in 0..=20u32 {
            let padding = nops(bytes).unwrap();
            assert_eq!(padding.len(), bytes.div_ceil(9) as usize);
            let code = assemble(&padding, &[], &[]).unwrap().code;
            assert_eq!(code.len(), bytes as usize, "padding of {bytes}");
            let mut decoder = iced_x86::Decoder::new(64, &code, 0);
            for instr in decoder.iter() {
                assert_eq!(instr.mnemonic(), iced_x86::Mnemonic::Nop, "{code:02x?}");
            }
        }
    }

    /// An alignment point pads so the instruction after it starts at a
    /// multiple of its bytes, and a branch over the padding still reaches
    /// its target.
    #[test]
    fn alignment_points_pad_to_their_boundary() {
        let ret = Instruction::with(Code::Retnq);
        let mut jump = Instruction::with_branch(Code::Jmp_rel8_64, 0).unwrap();
        jump.set_near_branch64(0);
        let instrs = [ret, jump, ret, ret];
        let assembled = assemble(&instrs, &[(1, 3)], &[(2, 32), (3, 8)]).unwrap();
        assert_eq!(assembled.starts, vec![0, 1, 32, 40, 41]);
        assert_eq!(assembled.ends, vec![1, 3, 33, 41]);
        // `jmp` from 1 to the `ret` at 40: rel8 = 40 - 3.
        assert_eq!(&assembled.code[1..3], &[0xeb, 37]);
    }
}
