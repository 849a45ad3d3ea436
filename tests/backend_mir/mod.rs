//! Hand-built MIR functions shared by the back-end tests: what instruction
//! selection would produce for small C functions, with or without debug
//! values (which must not change the code).

#![allow(dead_code)] // each test file uses a subset

use dwarfsmith::codegen::mir::*;
use dwarfsmith::x86::abi::CALLER_SAVED;

/// Builds a function block by block.
pub struct Builder {
    /// The function so far.
    pub f: Function,
    current: usize,
    debug: bool,
    loc: u32,
}

impl Builder {
    pub fn new(name: &str, debug: bool) -> Builder {
        let mut f = Function::new(name);
        f.new_block();
        Builder {
            f,
            current: 0,
            debug,
            loc: 1,
        }
    }
    pub fn vreg(&mut self, width: Width) -> Reg {
        self.f.new_vreg(width)
    }
    pub fn block(&mut self) -> BlockId {
        self.f.new_block()
    }
    pub fn switch_to(&mut self, b: BlockId) {
        self.current = b.0 as usize;
    }
    /// Sets the source location of the following instructions.
    pub fn line(&mut self, loc: u32) {
        self.loc = loc;
    }
    pub fn push(&mut self, kind: InstKind) {
        let loc = self.loc;
        self.f.blocks[self.current].insts.push(Inst::new(kind, loc));
    }
    /// A DBG_VALUE (only when building with debug values).
    pub fn dbg(&mut self, variable: u32, operands: Vec<DbgOperand>) {
        if self.debug {
            self.push(InstKind::DbgValue(DbgValue {
                variable,
                operands: operands.into(),
                expr: 0,
                indirect: false,
                moved: false,
            }));
        }
    }
    pub fn copy(&mut self, dst: Reg, src: Reg) {
        self.push(InstKind::Copy { dst, src });
    }
    pub fn alu(&mut self, op: AluOp, width: Width, dst: Reg, src: Rmi) {
        self.push(InstKind::Alu {
            op,
            width,
            dst,
            src,
        });
    }
    pub fn ret_rax(&mut self, value: Reg) {
        self.copy(phys(Gpr::Rax), value);
        self.push(InstKind::Ret {
            uses: vec![Gpr::Rax.into()],
        });
    }
    pub fn call(&mut self, name: &str, args: &[Gpr]) {
        self.push(InstKind::Call {
            target: CallTarget::Symbol(name.into()),
            args: args.iter().map(|&g| g.into()).collect(),
            rets: vec![Gpr::Rax.into()],
            clobbers: CALLER_SAVED,
            unwind: None,
        });
    }
    pub fn finish(self) -> Function {
        self.f
    }
}

pub fn phys(g: Gpr) -> Reg {
    g.into()
}

fn r(reg: Reg) -> DbgOperand {
    DbgOperand::Reg(reg)
}

/// `int add3(int a, int b, int c) { return a + b + c; }`
pub fn add3(debug: bool) -> Function {
    let mut b = Builder::new("add3", debug);
    let (a, bb, c) = (b.vreg(Width::W32), b.vreg(Width::W32), b.vreg(Width::W32));
    b.copy(a, phys(Gpr::Rdi));
    b.copy(bb, phys(Gpr::Rsi));
    b.copy(c, phys(Gpr::Rdx));
    b.dbg(1, vec![r(a)]);
    b.dbg(2, vec![r(bb)]);
    b.dbg(3, vec![r(c)]);
    b.line(2);
    let s = b.vreg(Width::W32);
    b.copy(s, a);
    b.alu(AluOp::Add, Width::W32, s, Rmi::Reg(bb));
    b.dbg(4, vec![r(s)]);
    b.alu(AluOp::Add, Width::W32, s, Rmi::Reg(c));
    b.line(3);
    b.ret_rax(s);
    b.finish()
}

/// `long sum_calls(long n) { long s = 0; for (long i = 0; i < n; i++) s += twice(i); return s; }`
pub fn sum_calls(debug: bool) -> Function {
    let mut b = Builder::new("sum_calls", debug);
    let (n, s, i, t) = (
        b.vreg(Width::W64),
        b.vreg(Width::W64),
        b.vreg(Width::W64),
        b.vreg(Width::W64),
    );
    let body = b.block();
    let exit = b.block();
    b.copy(n, phys(Gpr::Rdi));
    b.dbg(1, vec![r(n)]);
    b.line(2);
    b.push(InstKind::MovImm {
        dst: s,
        imm: 0,
        width: Width::W64,
    });
    b.push(InstKind::MovImm {
        dst: i,
        imm: 0,
        width: Width::W64,
    });
    b.dbg(2, vec![r(s)]);
    b.push(InstKind::Cmp {
        width: Width::W64,
        lhs: Rm::Reg(n),
        rhs: Rmi::Imm(0),
    });
    b.push(InstKind::Jcc {
        cond: Cond::Le,
        target: exit,
    });
    b.switch_to(body);
    b.line(3);
    b.dbg(3, vec![r(i)]);
    b.copy(phys(Gpr::Rdi), i);
    b.call("twice", &[Gpr::Rdi]);
    b.copy(t, phys(Gpr::Rax));
    b.dbg(4, vec![r(t), r(i)]);
    b.alu(AluOp::Add, Width::W64, s, Rmi::Reg(t));
    b.dbg(2, vec![r(s)]);
    b.alu(AluOp::Add, Width::W64, i, Rmi::Imm(1));
    b.push(InstKind::Cmp {
        width: Width::W64,
        lhs: Rm::Reg(i),
        rhs: Rmi::Reg(n),
    });
    b.push(InstKind::Jcc {
        cond: Cond::L,
        target: body,
    });
    b.switch_to(exit);
    b.line(4);
    b.dbg(1, vec![r(n)]);
    b.ret_rax(s);
    b.finish()
}

/// `long sum20(const long *p)`: loads p[0..20] first, then adds them all
/// up, so twenty values are live at once and some must be spilled.
pub fn sum20(debug: bool) -> Function {
    let mut b = Builder::new("sum20", debug);
    let p = b.vreg(Width::W64);
    b.copy(p, phys(Gpr::Rdi));
    let values: Vec<Reg> = (0..20)
        .map(|k| {
            let v = b.vreg(Width::W64);
            b.push(InstKind::Load {
                dst: v,
                addr: Address::reg(p, 8 * k),
                width: Width::W64,
            });
            b.dbg(10 + k as u32, vec![r(v)]);
            v
        })
        .collect();
    let s = b.vreg(Width::W64);
    b.copy(s, values[0]);
    for &v in &values[1..] {
        b.alu(AluOp::Add, Width::W64, s, Rmi::Reg(v));
        b.dbg(1, vec![r(s)]);
    }
    // Multiply each by its index and add again, keeping all alive to here.
    for (k, &v) in values.iter().enumerate() {
        b.push(InstKind::ImulImm {
            width: Width::W64,
            dst: v,
            src: Rm::Reg(v),
            imm: k as i32,
        });
        b.alu(AluOp::Add, Width::W64, s, Rmi::Reg(v));
    }
    b.ret_rax(s);
    b.finish()
}

/// `int pick(unsigned x) { switch (x) { case 0: return 10; case 1: return 11;
/// case 2: return 12; case 3: return 13; default: return -1; } }` as a jump table.
pub fn pick(debug: bool) -> Function {
    let mut b = Builder::new("pick", debug);
    let x = b.vreg(Width::W32);
    let idx = b.vreg(Width::W64);
    let table = b.vreg(Width::W64);
    let entry = b.vreg(Width::W64);
    let cases: Vec<BlockId> = (0..4).map(|_| b.block()).collect();
    let default = b.block();
    b.f.jump_tables.push(cases.clone());
    b.copy(x, phys(Gpr::Rdi));
    b.dbg(1, vec![r(x)]);
    b.push(InstKind::Cmp {
        width: Width::W32,
        lhs: Rm::Reg(x),
        rhs: Rmi::Imm(3),
    });
    b.push(InstKind::Jcc {
        cond: Cond::A,
        target: default,
    });
    b.push(InstKind::Extend {
        dst: idx,
        src: Rm::Reg(x),
        from: Width::W32,
        to: Width::W64,
        signed: false,
    });
    b.push(InstKind::Lea {
        dst: table,
        addr: Address {
            base: AddressBase::JumpTable(JumpTableId(0)),
            index: None,
            disp: 0,
        },
    });
    b.push(InstKind::Extend {
        dst: entry,
        src: Rm::Mem(Address {
            base: AddressBase::Reg(table),
            index: Some((idx, 4)),
            disp: 0,
        }),
        from: Width::W32,
        to: Width::W64,
        signed: true,
    });
    b.alu(AluOp::Add, Width::W64, entry, Rmi::Reg(table));
    b.push(InstKind::JmpIndirect {
        target: entry,
        table: JumpTableId(0),
    });
    for (k, &case) in cases.iter().chain([&default]).enumerate() {
        b.switch_to(case);
        let v = b.vreg(Width::W32);
        b.push(InstKind::MovImm {
            dst: v,
            imm: if k < 4 { 10 + k as i64 } else { -1 },
            width: Width::W32,
        });
        b.ret_rax(v);
    }
    b.finish()
}

/// `long globals(void) { return ext_counter + local_table[1]; }` where
/// `ext_counter` is external data (through the GOT) and `local_table` a
/// local array of longs (RIP-relative).
pub fn globals(debug: bool) -> Function {
    let mut b = Builder::new("globals", debug);
    let ptr = b.vreg(Width::W64);
    let v = b.vreg(Width::W64);
    let w = b.vreg(Width::W64);
    b.push(InstKind::Load {
        dst: ptr,
        addr: Address {
            base: AddressBase::Got("ext_counter".into()),
            index: None,
            disp: 0,
        },
        width: Width::W64,
    });
    b.push(InstKind::Load {
        dst: v,
        addr: Address::reg(ptr, 0),
        width: Width::W64,
    });
    b.dbg(1, vec![r(v)]);
    b.push(InstKind::Load {
        dst: w,
        addr: Address {
            base: AddressBase::Symbol("local_table".into()),
            index: None,
            disp: 8,
        },
        width: Width::W64,
    });
    b.alu(AluOp::Add, Width::W64, v, Rmi::Reg(w));
    b.ret_rax(v);
    b.finish()
}

/// `long div_mix(long a, long b, long c, long d, long e, long f, long g, long h)`:
/// `(a / b) + (a % b) + (c << (d & 63)) + g + h`, with g and h passed on the
/// stack: implicit rax/rdx, cl shift counts, incoming stack arguments.
pub fn div_mix(debug: bool) -> Function {
    let mut b = Builder::new("div_mix", debug);
    let args: Vec<Reg> = (0..6).map(|_| b.vreg(Width::W64)).collect();
    for (v, g) in args.iter().zip(dwarfsmith::x86::abi::ARGUMENT_REGISTERS) {
        b.copy(*v, phys(g));
    }
    let (g, h) = (b.vreg(Width::W64), b.vreg(Width::W64));
    for (k, v) in [g, h].into_iter().enumerate() {
        b.push(InstKind::Load {
            dst: v,
            addr: Address {
                base: AddressBase::IncomingArgs,
                index: None,
                disp: 8 * k as i32,
            },
            width: Width::W64,
        });
    }
    b.dbg(7, vec![r(g)]);
    let (q, rem) = (b.vreg(Width::W64), b.vreg(Width::W64));
    b.copy(phys(Gpr::Rax), args[0]);
    b.push(InstKind::SignExtendAx { width: Width::W64 });
    b.push(InstKind::Div {
        signed: true,
        width: Width::W64,
        divisor: Rm::Reg(args[1]),
    });
    b.copy(q, phys(Gpr::Rax));
    b.copy(rem, phys(Gpr::Rdx));
    b.dbg(1, vec![r(args[0])]);
    let sh = b.vreg(Width::W64);
    b.copy(sh, args[2]);
    b.copy(phys(Gpr::Rcx), args[3]);
    b.push(InstKind::Shift {
        op: ShiftOp::Shl,
        width: Width::W64,
        dst: sh,
        amount: ShiftAmount::Cl,
    });
    b.alu(AluOp::Add, Width::W64, q, Rmi::Reg(rem));
    b.alu(AluOp::Add, Width::W64, q, Rmi::Reg(sh));
    b.alu(AluOp::Add, Width::W64, q, Rmi::Reg(g));
    b.alu(AluOp::Add, Width::W64, q, Rmi::Reg(h));
    b.ret_rax(q);
    b.finish()
}

/// `long call8(long x)`: `return div_mix(x * 100, 7, x, 3, 0, 0, x, 1000);`:
/// stack-passed outgoing arguments.
pub fn call8(debug: bool) -> Function {
    let mut b = Builder::new("call8", debug);
    b.f.outgoing_args_size = 16;
    let x = b.vreg(Width::W64);
    b.copy(x, phys(Gpr::Rdi));
    b.dbg(1, vec![r(x)]);
    let x100 = b.vreg(Width::W64);
    b.push(InstKind::ImulImm {
        width: Width::W64,
        dst: x100,
        src: Rm::Reg(x),
        imm: 100,
    });
    b.push(InstKind::Store {
        src: Ri::Reg(x),
        addr: Address {
            base: AddressBase::OutgoingArgs,
            index: None,
            disp: 0,
        },
        width: Width::W64,
    });
    b.push(InstKind::Store {
        src: Ri::Imm(1000),
        addr: Address {
            base: AddressBase::OutgoingArgs,
            index: None,
            disp: 8,
        },
        width: Width::W64,
    });
    let consts = [(Gpr::Rsi, 7), (Gpr::Rcx, 3), (Gpr::R8, 0), (Gpr::R9, 0)];
    b.copy(phys(Gpr::Rdi), x100);
    b.copy(phys(Gpr::Rdx), x);
    for (g, k) in consts {
        b.push(InstKind::MovImm {
            dst: phys(g),
            imm: k,
            width: Width::W64,
        });
    }
    b.call(
        "div_mix",
        &[Gpr::Rdi, Gpr::Rsi, Gpr::Rdx, Gpr::Rcx, Gpr::R8, Gpr::R9],
    );
    let res = b.vreg(Width::W64);
    b.copy(res, phys(Gpr::Rax));
    b.ret_rax(res);
    b.finish()
}

/// `long pressure_calls(long n)`: twelve values `v[k] = n + k` and the
/// running sum `s` stay live across a call in a loop, more than the
/// callee-saved registers can hold:
/// `for (i = 0; i < 3; i++) { s += twice(i); for k: v[k] += s; }`,
/// then `return s + v[0] + … + v[11]`.
pub fn pressure_calls(debug: bool) -> Function {
    let mut b = Builder::new("pressure_calls", debug);
    let n = b.vreg(Width::W64);
    b.copy(n, phys(Gpr::Rdi));
    b.dbg(1, vec![r(n)]);
    let values: Vec<Reg> = (0..12)
        .map(|k| {
            let v = b.vreg(Width::W64);
            b.copy(v, n);
            b.alu(AluOp::Add, Width::W64, v, Rmi::Imm(k));
            b.dbg(10 + k as u32, vec![r(v)]);
            v
        })
        .collect();
    let (s, i, t) = (b.vreg(Width::W64), b.vreg(Width::W64), b.vreg(Width::W64));
    b.push(InstKind::MovImm {
        dst: s,
        imm: 0,
        width: Width::W64,
    });
    b.push(InstKind::MovImm {
        dst: i,
        imm: 0,
        width: Width::W64,
    });
    let body = b.block();
    let exit = b.block();
    b.switch_to(body);
    b.dbg(2, vec![r(i)]);
    b.copy(phys(Gpr::Rdi), i);
    b.call("twice", &[Gpr::Rdi]);
    b.copy(t, phys(Gpr::Rax));
    b.alu(AluOp::Add, Width::W64, s, Rmi::Reg(t));
    b.dbg(3, vec![r(s)]);
    for &v in &values {
        b.alu(AluOp::Add, Width::W64, v, Rmi::Reg(s));
    }
    b.alu(AluOp::Add, Width::W64, i, Rmi::Imm(1));
    b.push(InstKind::Cmp {
        width: Width::W64,
        lhs: Rm::Reg(i),
        rhs: Rmi::Imm(3),
    });
    b.push(InstKind::Jcc {
        cond: Cond::L,
        target: body,
    });
    b.switch_to(exit);
    let total = b.vreg(Width::W64);
    b.copy(total, s);
    for &v in &values {
        b.alu(AluOp::Add, Width::W64, total, Rmi::Reg(v));
    }
    b.ret_rax(total);
    b.finish()
}

/// Every sample, by name.
pub fn all(debug: bool) -> Vec<Function> {
    vec![
        add3(debug),
        sum_calls(debug),
        sum20(debug),
        pick(debug),
        globals(debug),
        div_mix(debug),
        call8(debug),
        pressure_calls(debug),
    ]
}
