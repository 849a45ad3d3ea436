//! Every MIR instruction form, encoded: each line shows the MIR instruction
//! and the x86 instruction(s) iced-x86 decodes from its bytes, so a wrong
//! opcode, width or operand order shows up in the snapshot.

use dwarfsmith::codegen::mir::*;
use dwarfsmith::x86::disasm::disassemble;
use dwarfsmith::x86::encode::encode;
use expect_test::{expect, Expect};

fn p(g: Gpr) -> Reg {
    g.into()
}

fn mem(base: Gpr, index: Option<(Gpr, u8)>, disp: i32) -> Address {
    Address {
        base: AddressBase::Reg(p(base)),
        index: index.map(|(r, s)| (p(r), s)),
        disp,
    }
}

/// The one caller of the encoder in this file: MIR line → disassembly.
fn check(insts: Vec<InstKind>, expected: Expect) {
    let mut f = Function::new("forms");
    let b = f.new_block();
    f.blocks[b.0 as usize].insts = insts.into_iter().map(|k| Inst::new(k, 0)).collect();
    let encoded = encode(&f, 0).expect("encodes");
    let mut out = String::new();
    for (inst, &(offset, len)) in f.blocks[0].insts.iter().zip(&encoded.inst_offsets[0]) {
        let bytes = &encoded.code[offset as usize..(offset + len) as usize];
        let text = disassemble(bytes);
        let text: Vec<&str> = text
            .lines()
            .map(|l| l.split_once(": ").unwrap().1)
            .collect();
        out.push_str(&format!(
            "{:<36} => {}\n",
            inst.kind.to_string(),
            text.join("; ")
        ));
    }
    expected.assert_eq(&out);
}

#[test]
fn moves_loads_stores_and_extensions() {
    use Width::*;
    check(
        vec![
            InstKind::Copy {
                dst: p(Gpr::R9),
                src: p(Gpr::Rsi),
            },
            InstKind::MovImm {
                dst: p(Gpr::Rsi),
                imm: -1,
                width: W8,
            },
            InstKind::MovImm {
                dst: p(Gpr::Rax),
                imm: 0x1234,
                width: W16,
            },
            InstKind::MovImm {
                dst: p(Gpr::R8),
                imm: -1,
                width: W32,
            },
            InstKind::MovImm {
                dst: p(Gpr::Rax),
                imm: -2,
                width: W64,
            },
            InstKind::MovImm {
                dst: p(Gpr::Rax),
                imm: 0xffff_ffff,
                width: W64,
            },
            InstKind::MovImm {
                dst: p(Gpr::Rax),
                imm: 0x1_0000_0000,
                width: W64,
            },
            InstKind::Load {
                dst: p(Gpr::Rdi),
                addr: mem(Gpr::Rsp, None, 8),
                width: W8,
            },
            InstKind::Load {
                dst: p(Gpr::Rax),
                addr: mem(Gpr::R13, Some((Gpr::R12, 8)), 0),
                width: W16,
            },
            InstKind::Load {
                dst: p(Gpr::Rax),
                addr: mem(Gpr::Rbp, None, 0),
                width: W32,
            },
            InstKind::Load {
                dst: p(Gpr::R15),
                addr: mem(Gpr::Rax, Some((Gpr::Rcx, 4)), -400),
                width: W64,
            },
            InstKind::Store {
                src: Ri::Reg(p(Gpr::Rsi)),
                addr: mem(Gpr::Rdi, None, 1),
                width: W8,
            },
            InstKind::Store {
                src: Ri::Imm(-7),
                addr: mem(Gpr::Rdi, None, 2),
                width: W16,
            },
            InstKind::Store {
                src: Ri::Imm(7),
                addr: mem(Gpr::Rdi, None, 4),
                width: W32,
            },
            InstKind::Store {
                src: Ri::Imm(-7),
                addr: mem(Gpr::Rdi, None, 8),
                width: W64,
            },
            InstKind::Extend {
                dst: p(Gpr::Rax),
                src: Rm::Reg(p(Gpr::Rdi)),
                from: W8,
                to: W32,
                signed: false,
            },
            InstKind::Extend {
                dst: p(Gpr::Rax),
                src: Rm::Reg(p(Gpr::Rsi)),
                from: W8,
                to: W64,
                signed: true,
            },
            InstKind::Extend {
                dst: p(Gpr::Rax),
                src: Rm::Mem(mem(Gpr::Rdi, None, 0)),
                from: W16,
                to: W64,
                signed: false,
            },
            InstKind::Extend {
                dst: p(Gpr::Rax),
                src: Rm::Reg(p(Gpr::Rcx)),
                from: W16,
                to: W32,
                signed: true,
            },
            InstKind::Extend {
                dst: p(Gpr::Rax),
                src: Rm::Reg(p(Gpr::Rcx)),
                from: W32,
                to: W64,
                signed: false,
            },
            InstKind::Extend {
                dst: p(Gpr::Rax),
                src: Rm::Reg(p(Gpr::Rcx)),
                from: W32,
                to: W64,
                signed: true,
            },
            InstKind::Lea {
                dst: p(Gpr::Rax),
                addr: mem(Gpr::Rdi, Some((Gpr::Rsi, 2)), 3),
            },
        ],
        expect![[r#"
            $r9 = COPY $rsi                      => mov r9, rsi
            $rsi = MOV8 -1                       => mov sil, 0xff
            $rax = MOV16 4660                    => mov ax, 0x1234
            $r8 = MOV32 -1                       => mov r8d, 0xffffffff
            $rax = MOV64 -2                      => mov rax, 0xfffffffffffffffe
            $rax = MOV64 4294967295              => mov eax, 0xffffffff
            $rax = MOV64 4294967296              => mov rax, 0x100000000
            $rdi = LOAD8 [$rsp + 8]              => mov dil, [rsp+8]
            $rax = LOAD16 [$r13 + $r12*8]        => mov ax, [r13+r12*8]
            $rax = LOAD32 [$rbp]                 => mov eax, [rbp]
            $r15 = LOAD64 [$rax + $rcx*4 - 400]  => mov r15, [rax+rcx*4-0x190]
            STORE8 [$rdi + 1], $rsi              => mov [rdi+1], sil
            STORE16 [$rdi + 2], -7               => mov word ptr [rdi+2], 0xfff9
            STORE32 [$rdi + 4], 7                => mov dword ptr [rdi+4], 7
            STORE64 [$rdi + 8], -7               => mov qword ptr [rdi+8], 0xfffffffffffffff9
            $rax = MOVZX32_8 $rdi                => movzx eax, dil
            $rax = MOVSX64_8 $rsi                => movsx rax, sil
            $rax = MOVZX64_16 [$rdi]             => movzx eax, word ptr [rdi]
            $rax = MOVSX32_16 $rcx               => movsx eax, cx
            $rax = MOVZX64_32 $rcx               => mov eax, ecx
            $rax = MOVSX64_32 $rcx               => movsxd rax, ecx
            $rax = LEA [$rdi + $rsi*2 + 3]       => lea rax, [rdi+rsi*2+3]
        "#]],
    );
}

#[test]
fn arithmetic_compares_and_conditions() {
    use Width::*;
    check(
        vec![
            InstKind::Alu {
                op: AluOp::Add,
                width: W32,
                dst: p(Gpr::Rax),
                src: Rmi::Reg(p(Gpr::Rcx)),
            },
            InstKind::Alu {
                op: AluOp::Sub,
                width: W64,
                dst: p(Gpr::Rax),
                src: Rmi::Imm(1),
            },
            InstKind::Alu {
                op: AluOp::And,
                width: W64,
                dst: p(Gpr::Rax),
                src: Rmi::Imm(0x1000),
            },
            InstKind::Alu {
                op: AluOp::Or,
                width: W8,
                dst: p(Gpr::Rdi),
                src: Rmi::Imm(-128),
            },
            InstKind::Alu {
                op: AluOp::Xor,
                width: W16,
                dst: p(Gpr::Rax),
                src: Rmi::Mem(mem(Gpr::Rbp, None, -8)),
            },
            InstKind::Imul {
                width: W32,
                dst: p(Gpr::Rax),
                src: Rm::Reg(p(Gpr::R10)),
            },
            InstKind::ImulImm {
                width: W64,
                dst: p(Gpr::Rax),
                src: Rm::Mem(mem(Gpr::Rdi, None, 0)),
                imm: 1000,
            },
            InstKind::Shift {
                op: ShiftOp::Shl,
                width: W32,
                dst: p(Gpr::Rax),
                amount: ShiftAmount::Cl,
            },
            InstKind::Shift {
                op: ShiftOp::Sar,
                width: W64,
                dst: p(Gpr::R11),
                amount: ShiftAmount::Imm(63),
            },
            InstKind::Shift {
                op: ShiftOp::Shr,
                width: W8,
                dst: p(Gpr::Rsi),
                amount: ShiftAmount::Imm(1),
            },
            InstKind::Shift {
                op: ShiftOp::Rol,
                width: W16,
                dst: p(Gpr::Rax),
                amount: ShiftAmount::Imm(8),
            },
            InstKind::Unary {
                op: UnaryOp::Neg,
                width: W32,
                dst: p(Gpr::Rax),
            },
            InstKind::Unary {
                op: UnaryOp::Not,
                width: W64,
                dst: p(Gpr::Rax),
            },
            InstKind::Unary {
                op: UnaryOp::Bswap,
                width: W32,
                dst: p(Gpr::R9),
            },
            InstKind::Cmp {
                width: W32,
                lhs: Rm::Reg(p(Gpr::Rax)),
                rhs: Rmi::Imm(0),
            },
            InstKind::Cmp {
                width: W64,
                lhs: Rm::Reg(p(Gpr::Rax)),
                rhs: Rmi::Reg(p(Gpr::Rdx)),
            },
            InstKind::Cmp {
                width: W8,
                lhs: Rm::Mem(mem(Gpr::Rdi, None, 0)),
                rhs: Rmi::Imm(10),
            },
            InstKind::Cmp {
                width: W32,
                lhs: Rm::Mem(mem(Gpr::Rdi, None, 0)),
                rhs: Rmi::Reg(p(Gpr::Rsi)),
            },
            InstKind::Test {
                width: W8,
                lhs: Rm::Reg(p(Gpr::Rdi)),
                rhs: Ri::Imm(1),
            },
            InstKind::Test {
                width: W64,
                lhs: Rm::Reg(p(Gpr::Rax)),
                rhs: Ri::Reg(p(Gpr::Rax)),
            },
            InstKind::Setcc {
                cond: Cond::L,
                dst: p(Gpr::Rsi),
            },
            InstKind::Setcc {
                cond: Cond::Ae,
                dst: p(Gpr::Rax),
            },
            InstKind::Cmov {
                cond: Cond::G,
                width: W32,
                dst: p(Gpr::Rax),
                src: Rm::Reg(p(Gpr::Rcx)),
            },
            InstKind::Cmov {
                cond: Cond::Be,
                width: W64,
                dst: p(Gpr::Rax),
                src: Rm::Mem(mem(Gpr::Rsp, None, 16)),
            },
            InstKind::SignExtendAx { width: W32 },
            InstKind::SignExtendAx { width: W64 },
            InstKind::Div {
                signed: true,
                width: W32,
                divisor: Rm::Reg(p(Gpr::Rcx)),
            },
            InstKind::Div {
                signed: false,
                width: W64,
                divisor: Rm::Mem(mem(Gpr::Rdi, None, 8)),
            },
            InstKind::Call {
                target: CallTarget::Reg(p(Gpr::R11)),
                args: vec![],
                rets: vec![],
                clobbers: RegSet::EMPTY,
                unwind: None,
            },
            InstKind::Push { reg: Gpr::R12 },
            InstKind::Pop { reg: Gpr::R12 },
            InstKind::Ud2,
            InstKind::Ret { uses: vec![] },
        ],
        expect![[r#"
            $rax = ADD32 $rax, $rcx              => add eax, ecx
            $rax = SUB64 $rax, 1                 => sub rax, 1
            $rax = AND64 $rax, 4096              => and rax, 0x1000
            $rdi = OR8 $rdi, -128                => or dil, 0x80
            $rax = XOR16 $rax, [$rbp - 8]        => xor ax, [rbp-8]
            $rax = IMUL32 $rax, $r10             => imul eax, r10d
            $rax = IMUL64 [$rdi], 1000           => imul rax, [rdi], 0x3e8
            $rax = SHL32 $rax, $cl               => shl eax, cl
            $r11 = SAR64 $r11, 63                => sar r11, 0x3f
            $rsi = SHR8 $rsi, 1                  => shr sil, 1
            $rax = ROL16 $rax, 8                 => rol ax, 8
            $rax = NEG32 $rax                    => neg eax
            $rax = NOT64 $rax                    => not rax
            $r9 = BSWAP32 $r9                    => bswap r9d
            CMP32 $rax, 0                        => test eax, eax
            CMP64 $rax, $rdx                     => cmp rax, rdx
            CMP8 [$rdi], 10                      => cmp byte ptr [rdi], 0xa
            CMP32 [$rdi], $rsi                   => cmp [rdi], esi
            TEST8 $rdi, 1                        => test dil, 1
            TEST64 $rax, $rax                    => test rax, rax
            $rsi = SETL                          => setl sil
            $rax = SETAE                         => setae al
            $rax = CMOVG32 $rax, $rcx            => cmovg eax, ecx
            $rax = CMOVBE64 $rax, [$rsp + 16]    => cmovbe rax, [rsp+0x10]
            SIGNEXTEND32 $rax                    => cdq
            SIGNEXTEND64 $rax                    => cqo
            IDIV32 $rcx                          => idiv ecx
            DIV64 [$rdi + 8]                     => div qword ptr [rdi+8]
            CALL $r11, args(), rets(), clobbers() => call r11
            PUSH $r12                            => push r12
            $r12 = POP                           => pop r12
            UD2                                  => ud2
            RET                                  => ret
        "#]],
    );
}

#[test]
fn unencodable_forms_are_errors_not_panics() {
    let cases = [
        InstKind::Imul {
            width: Width::W8,
            dst: p(Gpr::Rax),
            src: Rm::Reg(p(Gpr::Rcx)),
        },
        InstKind::Unary {
            op: UnaryOp::Bswap,
            width: Width::W16,
            dst: p(Gpr::Rax),
        },
        InstKind::Copy {
            dst: Reg::Virt(VReg(0)),
            src: p(Gpr::Rax),
        },
        InstKind::Load {
            dst: p(Gpr::Rax),
            addr: Address::slot(StackSlotId(0), 0),
            width: Width::W64,
        },
    ];
    let messages: Vec<String> = cases
        .into_iter()
        .map(|kind| {
            let mut f = Function::new("bad");
            f.new_block();
            f.blocks[0].insts = vec![Inst::new(kind, 0)];
            encode(&f, 0).unwrap_err().to_string()
        })
        .collect();
    expect![[r#"
        [
            "encoding failed: `$rax = IMUL8 $rax, $rcx` in `bad`: imul has no 8-bit two-operand form",
            "encoding failed: `$rax = BSWAP16 $rax` in `bad`: bswap is 32 or 64 bits",
            "encoding failed: `%0 = COPY $rax` in `bad`: virtual register %0 left after allocation",
            "encoding failed: `$rax = LOAD64 [%stack.0]` in `bad`: frame address left after frame lowering",
        ]
    "#]].assert_debug_eq(&messages);
}

fn x(n: u8) -> Reg {
    Xmm::new(n).into()
}

#[test]
fn sse2_moves_arithmetic_compares_and_conversions() {
    use FpSize::*;
    use Width::*;
    let arith = |op, size, dst, src| InstKind::FpArith { op, size, dst, src };
    check(
        vec![
            InstKind::Copy {
                dst: x(1),
                src: x(12),
            },
            InstKind::FpLoad {
                dst: x(0),
                addr: mem(Gpr::Rdi, Some((Gpr::Rcx, 8)), 16),
                size: F64,
            },
            InstKind::FpLoad {
                dst: x(9),
                addr: mem(Gpr::Rsp, None, 4),
                size: F32,
            },
            InstKind::FpStore {
                src: x(15),
                addr: mem(Gpr::Rbp, None, -8),
                size: F64,
            },
            InstKind::FpStore {
                src: x(2),
                addr: mem(Gpr::Rax, None, 0),
                size: F32,
            },
            arith(FpOp::Add, F32, x(0), Rm::Reg(x(1))),
            arith(FpOp::Add, F64, x(0), Rm::Mem(mem(Gpr::Rsi, None, 8))),
            arith(FpOp::Sub, F64, x(8), Rm::Reg(x(2))),
            arith(FpOp::Mul, F32, x(3), Rm::Reg(x(4))),
            arith(FpOp::Div, F64, x(5), Rm::Reg(x(6))),
            arith(FpOp::Min, F32, x(0), Rm::Reg(x(1))),
            arith(FpOp::Max, F64, x(0), Rm::Reg(x(1))),
            InstKind::FpSqrt {
                size: F64,
                dst: x(7),
                src: Rm::Reg(x(7)),
            },
            InstKind::FpSqrt {
                size: F32,
                dst: x(1),
                src: Rm::Mem(mem(Gpr::Rdi, None, 0)),
            },
            InstKind::FpLogic {
                op: FpLogicOp::And,
                dst: x(0),
                src: x(1),
            },
            InstKind::FpLogic {
                op: FpLogicOp::AndNot,
                dst: x(2),
                src: x(3),
            },
            InstKind::FpLogic {
                op: FpLogicOp::Or,
                dst: x(4),
                src: x(5),
            },
            InstKind::FpLogic {
                op: FpLogicOp::Xor,
                dst: x(10),
                src: x(11),
            },
            InstKind::XmmZero { dst: x(13) },
            InstKind::FpCmp {
                size: F64,
                lhs: x(0),
                rhs: Rm::Reg(x(1)),
                signaling: false,
            },
            InstKind::FpCmp {
                size: F32,
                lhs: x(0),
                rhs: Rm::Mem(mem(Gpr::Rdi, None, 4)),
                signaling: false,
            },
            InstKind::FpCmp {
                size: F64,
                lhs: x(2),
                rhs: Rm::Reg(x(3)),
                signaling: true,
            },
            InstKind::FpCmp {
                size: F32,
                lhs: x(2),
                rhs: Rm::Reg(x(3)),
                signaling: true,
            },
            InstKind::FpCmpMask {
                size: F64,
                predicate: FpCmpPredicate::Eq,
                dst: x(0),
                src: Rm::Reg(x(1)),
            },
            InstKind::FpCmpMask {
                size: F32,
                predicate: FpCmpPredicate::Unord,
                dst: x(0),
                src: Rm::Reg(x(1)),
            },
            InstKind::FpCmpMask {
                size: F64,
                predicate: FpCmpPredicate::Nle,
                dst: x(0),
                src: Rm::Reg(x(1)),
            },
            InstKind::IntToFp {
                size: F64,
                width: W32,
                dst: x(0),
                src: Rm::Reg(p(Gpr::Rdi)),
            },
            InstKind::IntToFp {
                size: F32,
                width: W64,
                dst: x(1),
                src: Rm::Reg(p(Gpr::R8)),
            },
            InstKind::IntToFp {
                size: F64,
                width: W64,
                dst: x(1),
                src: Rm::Mem(mem(Gpr::Rdi, None, 0)),
            },
            InstKind::FpToInt {
                size: F64,
                width: W32,
                rounded: false,
                dst: p(Gpr::Rax),
                src: Rm::Reg(x(0)),
            },
            InstKind::FpToInt {
                size: F32,
                width: W64,
                rounded: true,
                dst: p(Gpr::R10),
                src: Rm::Reg(x(9)),
            },
            InstKind::FpConvert {
                from: F32,
                dst: x(0),
                src: Rm::Reg(x(0)),
            },
            InstKind::FpConvert {
                from: F64,
                dst: x(1),
                src: Rm::Mem(mem(Gpr::Rsi, None, 0)),
            },
            InstKind::MovToXmm {
                width: W64,
                dst: x(0),
                src: Rm::Reg(p(Gpr::Rax)),
            },
            InstKind::MovToXmm {
                width: W32,
                dst: x(14),
                src: Rm::Reg(p(Gpr::R9)),
            },
            InstKind::MovFromXmm {
                width: W64,
                dst: p(Gpr::Rcx),
                src: x(3),
            },
            InstKind::MovFromXmm {
                width: W32,
                dst: p(Gpr::Rax),
                src: x(0),
            },
        ],
        expect![[r#"
            $xmm1 = COPY $xmm12                  => movaps xmm1, xmm12
            $xmm0 = FLOAD64 [$rdi + $rcx*8 + 16] => movsd xmm0, [rdi+rcx*8+0x10]
            $xmm9 = FLOAD32 [$rsp + 4]           => movss xmm9, [rsp+4]
            FSTORE64 [$rbp - 8], $xmm15          => movsd [rbp-8], xmm15
            FSTORE32 [$rax], $xmm2               => movss [rax], xmm2
            $xmm0 = FADD32 $xmm0, $xmm1          => addss xmm0, xmm1
            $xmm0 = FADD64 $xmm0, [$rsi + 8]     => addsd xmm0, [rsi+8]
            $xmm8 = FSUB64 $xmm8, $xmm2          => subsd xmm8, xmm2
            $xmm3 = FMUL32 $xmm3, $xmm4          => mulss xmm3, xmm4
            $xmm5 = FDIV64 $xmm5, $xmm6          => divsd xmm5, xmm6
            $xmm0 = FMIN32 $xmm0, $xmm1          => minss xmm0, xmm1
            $xmm0 = FMAX64 $xmm0, $xmm1          => maxsd xmm0, xmm1
            $xmm7 = FSQRT64 $xmm7                => sqrtsd xmm7, xmm7
            $xmm1 = FSQRT32 [$rdi]               => sqrtss xmm1, [rdi]
            $xmm0 = ANDPS $xmm0, $xmm1           => andps xmm0, xmm1
            $xmm2 = ANDNPS $xmm2, $xmm3          => andnps xmm2, xmm3
            $xmm4 = ORPS $xmm4, $xmm5            => orps xmm4, xmm5
            $xmm10 = XORPS $xmm10, $xmm11        => xorps xmm10, xmm11
            $xmm13 = XMM_ZERO                    => pxor xmm13, xmm13
            UCOMIS64 $xmm0, $xmm1                => ucomisd xmm0, xmm1
            UCOMIS32 $xmm0, [$rdi + 4]           => ucomiss xmm0, [rdi+4]
            COMIS64 $xmm2, $xmm3                 => comisd xmm2, xmm3
            COMIS32 $xmm2, $xmm3                 => comiss xmm2, xmm3
            $xmm0 = FCMP64.eq $xmm0, $xmm1       => cmpeqsd xmm0, xmm1
            $xmm0 = FCMP32.unord $xmm0, $xmm1    => cmpunordss xmm0, xmm1
            $xmm0 = FCMP64.nle $xmm0, $xmm1      => cmpnlesd xmm0, xmm1
            $xmm0 = CVT_I32_F64 $rdi             => cvtsi2sd xmm0, edi
            $xmm1 = CVT_I64_F32 $r8              => cvtsi2ss xmm1, r8
            $xmm1 = CVT_I64_F64 [$rdi]           => cvtsi2sd xmm1, qword ptr [rdi]
            $rax = CVTT_F64_I32 $xmm0            => cvttsd2si eax, xmm0
            $r10 = CVT_F32_I64 $xmm9             => cvtss2si r10, xmm9
            $xmm0 = CVT_F32_F64 $xmm0            => cvtss2sd xmm0, xmm0
            $xmm1 = CVT_F64_F32 [$rsi]           => cvtsd2ss xmm1, [rsi]
            $xmm0 = MOV_TO_XMM64 $rax            => movq xmm0, rax
            $xmm14 = MOV_TO_XMM32 $r9            => movd xmm14, r9d
            $rcx = MOV_FROM_XMM64 $xmm3          => movq rcx, xmm3
            $rax = MOV_FROM_XMM32 $xmm0          => movd eax, xmm0
        "#]],
    );
}

#[test]
fn a_register_of_the_wrong_class_is_an_encoding_error() {
    let mut f = Function::new("wrong");
    let b = f.new_block();
    f.blocks[b.0 as usize].insts = vec![Inst::new(
        InstKind::FpArith {
            op: FpOp::Add,
            size: FpSize::F64,
            dst: p(Gpr::Rax),
            src: Rm::Reg(x(1)),
        },
        0,
    )];
    let error = encode(&f, 0).unwrap_err();
    assert_eq!(
        error.message,
        "`$rax = FADD64 $rax, $xmm1` in `wrong`: rax where an xmm register goes"
    );
}
