//! One generated function: its signature line, body and debug metadata.
//!
//! In: the module state and the signatures of all functions. Out: a
//! `define ... { ... }` appended to the module text, its DISubprogram,
//! variables, scopes and locations added to the metadata table.
//!
//! The body is a chain of segments (arithmetic statements, a guarded
//! division, a loop, a switch, a load/store through a pointer parameter, a
//! call). Each segment starts in the current block and leaves its result in
//! a block that dominates everything after it, so the values it adds to
//! `available` may be used by any later instruction or debug record.

use std::collections::HashMap;

use super::body::{Arg, Block, Body, Operand, Ty, Value};
use super::ctypes::{di_type, tbaa_tag, CType, Scalar};
use super::meta::Md;
use super::{ModuleState, Signature, EXTERNALS};

/// Appends the definition of `signatures[index]` to `out`.
pub(crate) fn generate_function(
    state: &mut ModuleState,
    signatures: &[Signature],
    index: usize,
    out: &mut String,
) {
    let signature = &signatures[index];
    let param_types: Vec<Ty> = signature.params.iter().map(|param| param.ty()).collect();
    let subprogram = state.md.reserve();
    let retained = state.md.reserve();
    let first_line = state.next_line;
    let mut gen = FunctionGen {
        state,
        signatures,
        index,
        body: Body::new(&param_types),
        subprogram,
        line: first_line,
        variables: Vec::new(),
        available: Vec::new(),
        pointers: Vec::new(),
        next_name: 0,
        chain: Vec::new(),
        common: HashMap::new(),
    };
    gen.describe_params();
    let segments = gen.state.rng.range(5, 11);
    for _ in 0..segments {
        let start = gen.body.current();
        gen.chain.push(start);
        gen.segment();
    }
    let last = gen.body.current();
    gen.chain.push(last);
    gen.finish();

    let FunctionGen {
        state,
        body,
        variables,
        line,
        ..
    } = gen;
    state.next_line = line + 3;
    let subroutine = subroutine_type(state, signature);
    let variables: Vec<String> = variables.iter().map(Md::to_string).collect();
    state
        .md
        .set(retained, format!("!{{{}}}", variables.join(", ")));
    state.md.set(
        subprogram,
        format!(
            "distinct !DISubprogram(name: \"{name}\", scope: {file}, file: {file}, line: {first_line}, \
             type: {subroutine}, scopeLine: {first_line}, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, \
             spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: {unit}, retainedNodes: {retained})",
            name = signature.name,
            file = state.file,
            unit = state.compile_unit,
        ),
    );

    let ret = match signature.ret {
        Some(scalar) => format!("{}{}", scalar.extension_attr(), scalar.ty().name()),
        None => "void".to_string(),
    };
    let params: Vec<String> = signature
        .params
        .iter()
        .enumerate()
        .map(|(number, param)| match param {
            CType::Scalar(scalar) => format!(
                "{} noundef {}%{number}",
                scalar.ty().name(),
                scalar.extension_attr()
            ),
            CType::Ptr(_) => format!("ptr noundef %{number}"),
        })
        .collect();
    out.push_str(&format!(
        "define dso_local {ret} @{}({}) local_unnamed_addr #0 !dbg {subprogram} {{\n",
        signature.name,
        params.join(", ")
    ));
    body.print(out);
    out.push_str("}\n");
}

fn subroutine_type(state: &mut ModuleState, signature: &Signature) -> Md {
    let mut types = vec![match signature.ret {
        Some(scalar) => di_type(&mut state.md, CType::Scalar(scalar)).to_string(),
        None => "null".to_string(),
    }];
    for &param in &signature.params {
        types.push(di_type(&mut state.md, param).to_string());
    }
    let list = state.md.intern(format!("!{{{}}}", types.join(", ")));
    state.md.intern(format!("!DISubroutineType(types: {list})"))
}

/// Binary operations of C integer code as clang -O2 prints them.
#[derive(Clone, Copy)]
enum BinOp {
    Add,
    Sub,
    Mul,
    Shl,
    Shr,
    And,
    Or,
    Xor,
}

const BIN_OPS: [BinOp; 8] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Shl,
    BinOp::Shr,
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
];

struct FunctionGen<'a> {
    state: &'a mut ModuleState,
    signatures: &'a [Signature],
    index: usize,
    body: Body,
    subprogram: Md,
    /// The current source line; statements move it forward.
    line: u32,
    /// Every DILocalVariable of the function (its retainedNodes).
    variables: Vec<Md>,
    /// Integer values that dominate the current position, with their C types.
    available: Vec<(Value, Scalar)>,
    /// Pointer parameters with the type they point to.
    pointers: Vec<(Value, Scalar)>,
    next_name: usize,
    /// Blocks that dominate everything generated after them: the block each segment starts in.
    chain: Vec<Block>,
    /// Pure instructions already written (conversions, constant-offset GEPs), by
    /// their text, so one in a `chain` block is reused as clang's GVN would.
    common: HashMap<String, (Value, Block)>,
}

impl FunctionGen<'_> {
    // ---- debug metadata -------------------------------------------------------------

    /// The location of a new statement in `scope`: the next line, some column.
    fn statement(&mut self, scope: Md) -> String {
        self.line += self.state.rng.range(1, 2) as u32;
        let column = self.state.rng.range(3, 30);
        let location = self.state.md.intern(format!(
            "!DILocation(line: {}, column: {column}, scope: {scope})",
            self.line
        ));
        format!(", !dbg {location}")
    }

    /// The line-0 location clang gives debug records of variables in `scope`.
    fn record_location(&mut self, scope: Md) -> Md {
        self.state
            .md
            .intern(format!("!DILocation(line: 0, scope: {scope})"))
    }

    fn lexical_block(&mut self, parent: Md) -> Md {
        let column = self.state.rng.range(3, 12);
        self.state.md.fresh(format!(
            "distinct !DILexicalBlock(scope: {parent}, file: {}, line: {}, column: {column})",
            self.state.file, self.line
        ))
    }

    fn variable(&mut self, scope: Md, ctype: CType, arg: Option<usize>) -> Md {
        const NAMES: [&str; 10] = [
            "acc", "tmp", "v", "w", "k", "lo", "hi", "mask", "sum", "res",
        ];
        let name = match arg {
            Some(number) => format!("a{number}"),
            None => {
                self.next_name += 1;
                format!("{}{}", self.state.rng.pick(&NAMES), self.next_name)
            }
        };
        let arg = arg
            .map(|number| format!("arg: {}, ", number + 1))
            .unwrap_or_default();
        let ty = di_type(&mut self.state.md, ctype);
        let variable = self.state.md.fresh(format!(
            "!DILocalVariable(name: \"{name}\", {arg}scope: {scope}, file: {}, line: {}, type: {ty})",
            self.state.file, self.line
        ));
        self.variables.push(variable);
        variable
    }

    /// `#dbg_value(ty operand, variable, !DIExpression(), line-0 location)`.
    fn dbg_value(&mut self, variable: Md, scope: Md, ty: Ty, operand: Operand) {
        let location = self.record_location(scope);
        let operand = match operand {
            Operand::Val(value) => Arg::from(value),
            Operand::Imm(imm) => Arg::from(imm),
        };
        self.body.record(
            &format!(
                "#dbg_value({} {{}}, {variable}, !DIExpression(), {location})",
                ty.name()
            ),
            &[operand],
        );
    }

    /// A new variable of type `scalar` in the function scope, described by `value` here.
    fn name_value(&mut self, value: Value, scalar: Scalar) {
        let scope = self.subprogram;
        let variable = self.variable(scope, CType::Scalar(scalar), None);
        self.dbg_value(variable, scope, scalar.ty(), value.into());
        self.available.push((value, scalar));
    }

    fn describe_params(&mut self) {
        let scope = self.subprogram;
        for (number, &param) in self.signatures[self.index].params.iter().enumerate() {
            let value = self.body.param(number);
            let variable = self.variable(scope, param, Some(number));
            self.dbg_value(variable, scope, param.ty(), value.into());
            match param {
                CType::Scalar(scalar) => self.available.push((value, scalar)),
                CType::Ptr(pointee) => self.pointers.push((value, pointee)),
            }
        }
        if self.available.is_empty() {
            // Only pointer parameters: the code starts from what they point to (`int x = p[0];`).
            let (pointer, element) = self.pointers[0];
            let dbg = self.statement(scope);
            let tbaa = tbaa_tag(&mut self.state.md, element);
            let loaded = self.body.def(
                element.ty(),
                &format!(
                    "load {0}, ptr {{}}, align {1}{dbg}, !tbaa {tbaa}",
                    element.ty().name(),
                    element.bytes()
                ),
                &[pointer.into()],
            );
            self.name_value(loaded, element);
        }
    }

    /// Writes the pure instruction `template` (no `!dbg`; `dbg` is appended) unless
    /// the same instruction already sits in a block dominating this point.
    fn common_def(&mut self, ty: Ty, template: &str, args: &[Arg], dbg: &str) -> Value {
        let key = format!("{template}|{args:?}");
        if let Some(&(value, block)) = self.common.get(&key) {
            if self.chain.contains(&block) {
                return value;
            }
        }
        let value = self.body.def(ty, &format!("{template}{dbg}"), args);
        self.common.insert(key, (value, self.body.current()));
        value
    }

    // ---- value helpers ---------------------------------------------------------------

    /// An integer value available here, usually a recent one; a constant if there is none.
    fn pick(&mut self) -> (Operand, Scalar) {
        if self.available.is_empty() {
            return (Operand::Imm(self.state.rng.range(1, 99)), Scalar::Int);
        }
        let len = self.available.len();
        self.pick_at(len)
    }

    fn pick_at(&mut self, len: usize) -> (Operand, Scalar) {
        let index = if self.state.rng.chance(65) {
            len - 1 - self.state.rng.index(len.min(3))
        } else {
            self.state.rng.index(len)
        };
        let (value, scalar) = self.available[index];
        (value.into(), scalar)
    }

    /// `operand` (of C type `from`) converted to `to` with sext/zext/trunc as C does.
    fn convert(&mut self, operand: Operand, from: Scalar, to: Ty, dbg: &str) -> Operand {
        let Operand::Val(value) = operand else {
            return operand;
        };
        let from_ty = from.ty();
        if from_ty == to {
            return operand;
        }
        let (op, flags) = if from_ty.bits() > to.bits() {
            ("trunc", "")
        } else if from.is_signed() {
            ("sext", "")
        } else {
            ("zext", "")
        };
        self.common_def(
            to,
            &format!("{op} {flags}{} {{}} to {}", from_ty.name(), to.name()),
            &[value.into()],
            dbg,
        )
        .into()
    }

    /// An available integer converted to `to`.
    fn pick_as(&mut self, to: Ty, dbg: &str) -> Operand {
        let (operand, scalar) = self.pick();
        self.convert(operand, scalar, to, dbg)
    }

    /// Two different available integers converted to `to` (the second is a
    /// constant when only one value is available): clang folds `x op x`.
    fn pick_pair_as(&mut self, to: Ty, dbg: &str) -> (Operand, Operand) {
        let (first, first_scalar) = self.pick();
        let mut second = None;
        for _ in 0..4 {
            let candidate = self.pick_at(self.available.len());
            if candidate.0 != first {
                second = Some(candidate);
                break;
            }
        }
        let first = self.convert(first, first_scalar, to, dbg);
        let second = match second {
            Some((operand, scalar)) => self.convert(operand, scalar, to, dbg),
            None => Operand::Imm(self.small_constant()),
        };
        (first, second)
    }

    fn small_constant(&mut self) -> i64 {
        *self
            .state
            .rng
            .pick(&[1, 2, 3, 5, 7, 9, 12, 15, 31, 100, 255, -1, -8])
    }

    /// The working width of a statement: int mostly, long sometimes.
    fn pick_width(&mut self) -> Scalar {
        let signed = self.state.rng.chance(75);
        if self.state.rng.chance(75) {
            Scalar::Int.with_sign(signed)
        } else {
            Scalar::Long.with_sign(signed)
        }
    }

    fn binary(
        &mut self,
        op: BinOp,
        scalar: Scalar,
        lhs: Operand,
        rhs: Operand,
        dbg: &str,
    ) -> Value {
        let ty = scalar.ty();
        let name = ty.name();
        let shift = i64::from(ty.bits()) - 1;
        let (text, rhs) = match (op, scalar.is_signed()) {
            (BinOp::Add, true) => ("add nsw", rhs),
            (BinOp::Add, false) => ("add", rhs),
            (BinOp::Sub, true) => ("sub nsw", rhs),
            (BinOp::Sub, false) => ("sub", rhs),
            (BinOp::Mul, true) => ("mul nsw", rhs),
            (BinOp::Mul, false) => ("mul", rhs),
            (BinOp::Shl, _) => ("shl", Operand::Imm(self.state.rng.range(1, shift.min(7)))),
            (BinOp::Shr, true) => ("ashr", Operand::Imm(self.state.rng.range(1, shift))),
            (BinOp::Shr, false) => ("lshr", Operand::Imm(self.state.rng.range(1, shift))),
            (BinOp::And, _) => ("and", rhs),
            (BinOp::Or, _) => ("or", rhs),
            (BinOp::Xor, _) => ("xor", rhs),
        };
        self.body.def(
            ty,
            &format!("{text} {name} {{}}, {{}}{dbg}"),
            &[lhs.into(), rhs.into()],
        )
    }

    // ---- segments --------------------------------------------------------------------

    fn segment(&mut self) {
        match self.state.rng.range(0, 19) {
            0..=5 => self.arithmetic(),
            6..=7 => self.guarded_division(),
            8..=10 => self.counted_loop(),
            11..=12 => self.switch(),
            13..=14 => self.memory(),
            15..=17 => self.call_generated(),
            _ => self.call_external(),
        }
    }

    /// One to three C statements of arithmetic, with selects, min/max and width changes.
    fn arithmetic(&mut self) {
        let scalar = self.pick_width();
        let ty = scalar.ty();
        let statements = self.state.rng.range(1, 3);
        for _ in 0..statements {
            let scope = self.subprogram;
            let dbg = self.statement(scope);
            let kind = self.state.rng.range(0, 9);
            let op = *self.state.rng.pick(&BIN_OPS);
            let with_constant = matches!(op, BinOp::Shl | BinOp::Shr) || self.state.rng.chance(50);
            // Only what the statement uses is picked (and converted): no dead conversions.
            let (lhs, other) = if kind == 0 || (kind >= 3 && !with_constant) {
                self.pick_pair_as(ty, &dbg)
            } else {
                (self.pick_as(ty, &dbg), Operand::Imm(self.small_constant()))
            };
            let mut value = match kind {
                0 => {
                    let predicate = if scalar.is_signed() { "slt" } else { "ult" };
                    let cond = self.body.def(
                        Ty::I1,
                        &format!("icmp {predicate} {} {{}}, {{}}{dbg}", ty.name()),
                        &[lhs.into(), other.into()],
                    );
                    self.body.def(
                        ty,
                        &format!("select i1 {{}}, {0} {{}}, {0} {{}}{dbg}", ty.name()),
                        &[cond.into(), other.into(), lhs.into()],
                    )
                }
                1 => {
                    let (name, bound) = if self.state.rng.chance(50) {
                        ("smin", self.state.rng.range(10, 1000))
                    } else {
                        ("smax", -self.state.rng.range(10, 1000))
                    };
                    let intrinsic = format!("llvm.{name}.{}", ty.name());
                    self.state.use_min_max_intrinsic(&intrinsic, ty);
                    self.body.def(
                        ty,
                        &format!(
                            "tail call {0} @{intrinsic}({0} {{}}, {0} {bound}){dbg}",
                            ty.name()
                        ),
                        &[lhs.into()],
                    )
                }
                2 => {
                    self.state.use_abs_intrinsic(ty);
                    self.body.def(
                        ty,
                        &format!(
                            "tail call {0} @llvm.abs.{0}({0} {{}}, i1 true){dbg}",
                            ty.name()
                        ),
                        &[lhs.into()],
                    )
                }
                _ => self.binary(op, scalar, lhs, other, &dbg),
            };
            if self.state.rng.chance(35) {
                // A second operation on the same line, like `x = (a + b) * c`.
                let op = *self.state.rng.pick(&BIN_OPS);
                let rhs = Operand::Imm(self.small_constant());
                let previous = value;
                value = self.binary(op, scalar, value.into(), rhs, &dbg);
                if self.state.rng.chance(40) {
                    self.salvaged_record(previous, ty);
                }
            }
            self.name_value(value, scalar);
            if self.state.rng.chance(15) {
                // `char c = x;` / `short s = x;`: a truncation to a narrow variable.
                let narrow = *self.state.rng.pick(&[
                    Scalar::Char,
                    Scalar::UChar,
                    Scalar::Short,
                    Scalar::UShort,
                ]);
                let truncated = self.body.def(
                    narrow.ty(),
                    &format!("trunc {} {{}} to {}{dbg}", ty.name(), narrow.ty().name()),
                    &[value.into()],
                );
                self.name_value(truncated, narrow);
            }
        }
    }

    /// A variable whose value was folded away, described by a salvaged expression
    /// over values that are still there (`DW_OP_LLVM_arg` with a DIArgList, or a
    /// constant offset), or by poison when nothing is left.
    fn salvaged_record(&mut self, base: Value, ty: Ty) {
        let scope = self.subprogram;
        let scalar = if ty == Ty::I64 {
            Scalar::Long
        } else {
            Scalar::Int
        };
        let variable = self.variable(scope, CType::Scalar(scalar), None);
        let location = self.record_location(scope);
        let name = ty.name();
        // Debug records never cause instructions, so the second operand is a value of type `ty` already.
        let same_type: Vec<Value> = self
            .available
            .iter()
            .filter(|(value, _)| self.body.ty(*value) == ty)
            .map(|&(value, _)| value)
            .collect();
        let kind = if same_type.is_empty() {
            self.state.rng.range(1, 2)
        } else {
            self.state.rng.range(0, 2)
        };
        match kind {
            0 => {
                let other = *self.state.rng.pick(&same_type);
                let op =
                    *self
                        .state
                        .rng
                        .pick(&["DW_OP_plus", "DW_OP_minus", "DW_OP_mul", "DW_OP_xor"]);
                self.body.record(
                    &format!(
                        "#dbg_value(!DIArgList({name} {{}}, {name} {{}}), {variable}, \
                         !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, {op}, DW_OP_stack_value), {location})"
                    ),
                    &[base.into(), other.into()],
                );
            }
            1 => {
                let offset = self.state.rng.range(1, 64);
                self.body.record(
                    &format!(
                        "#dbg_value({name} {{}}, {variable}, !DIExpression(DW_OP_plus_uconst, {offset}, DW_OP_stack_value), {location})"
                    ),
                    &[base.into()],
                );
            }
            _ => {
                self.body.record(
                    &format!("#dbg_value({name} poison, {variable}, !DIExpression(), {location})"),
                    &[],
                );
            }
        }
    }

    /// `q = d != 0 ? a / d + a % d : 0;` with the division in its own block.
    fn guarded_division(&mut self) {
        let scalar = self.pick_width();
        let ty = scalar.ty();
        let name = ty.name();
        let scope = self.subprogram;
        let dbg = self.statement(scope);
        let (dividend, divisor) = self.pick_pair_as(ty, &dbg);
        let Operand::Val(divisor) = divisor else {
            // A constant divisor needs no guard.
            let value = self.body.def(
                ty,
                &format!("sdiv {name} {{}}, {{}}{dbg}"),
                &[dividend.into(), divisor.into()],
            );
            return self.name_value(value, scalar);
        };
        let entry = self.body.current();
        let divide = self.body.new_block();
        let join = self.body.new_block();
        let is_zero = self.body.def(
            Ty::I1,
            &format!("icmp eq {name} {{}}, 0{dbg}"),
            &[divisor.into()],
        );
        self.body.cond_br(is_zero, join, divide, &dbg);
        self.body.switch_to(divide);
        let (div, rem) = if scalar.is_signed() {
            ("sdiv", "srem")
        } else {
            ("udiv", "urem")
        };
        let quotient = self.body.def(
            ty,
            &format!("{div} {name} {{}}, {{}}{dbg}"),
            &[dividend.into(), divisor.into()],
        );
        let result = if self.state.rng.chance(50) {
            let remainder = self.body.def(
                ty,
                &format!("{rem} {name} {{}}, {{}}{dbg}"),
                &[dividend.into(), divisor.into()],
            );
            self.binary(BinOp::Add, scalar, quotient.into(), remainder.into(), &dbg)
        } else {
            quotient
        };
        self.body.br(join, &dbg);
        self.body.switch_to(join);
        let merged = self.body.def(
            ty,
            &format!("phi {name} [ 0, {{}} ], [ {{}}, {{}} ]{dbg}"),
            &[entry.into(), result.into(), divide.into()],
        );
        self.name_value(merged, scalar);
    }

    /// A `for` loop: over a pointer parameter's elements when there is one
    /// (load, accumulate, sometimes store back), else a bit-counting loop.
    fn counted_loop(&mut self) {
        if self.pointers.is_empty() {
            return self.bit_loop();
        }
        let (pointer, element) = *self.state.rng.pick(&self.pointers.clone());
        let acc_scalar = self.pick_width();
        let acc_ty = acc_scalar.ty();
        let acc_name = acc_ty.name();
        let function_scope = self.subprogram;
        let dbg = self.statement(function_scope);
        let count = self.pick_as(Ty::I32, &dbg);
        let init = if self.state.rng.chance(50) {
            Operand::Imm(0)
        } else {
            self.pick_as(acc_ty, &dbg)
        };
        let for_scope = self.lexical_block(function_scope);
        let acc_variable = self.variable(function_scope, CType::Scalar(acc_scalar), None);
        let index_variable = self.variable(for_scope, CType::Scalar(Scalar::Int), None);
        self.dbg_value(acc_variable, function_scope, acc_ty, init);
        self.dbg_value(index_variable, for_scope, Ty::I32, Operand::Imm(0));
        let loop_dbg = self.statement(for_scope);
        let loop_location = self.state.md.intern(format!(
            "!DILocation(line: {}, column: 3, scope: {for_scope})",
            self.line
        ));

        let entry = self.body.current();
        let preheader = self.body.new_block();
        let body_block = self.body.new_block();
        let exit = self.body.new_block();
        let positive = self.body.def(
            Ty::I1,
            &format!("icmp sgt i32 {{}}, 0{loop_dbg}"),
            &[count.into()],
        );
        self.body.cond_br(positive, preheader, exit, &loop_dbg);

        self.body.switch_to(preheader);
        let wide = self.body.def(
            Ty::I64,
            &format!("zext nneg i32 {{}} to i64{loop_dbg}"),
            &[count.into()],
        );
        self.body.br(body_block, &loop_dbg);

        self.body.switch_to(body_block);
        let next_index = self.body.reserve(Ty::I64);
        let next_acc = self.body.reserve(acc_ty);
        let index = self.body.def(
            Ty::I64,
            "phi i64 [ 0, {} ], [ {}, {} ]",
            &[preheader.into(), next_index.into(), body_block.into()],
        );
        let acc = self.body.def(
            acc_ty,
            &format!("phi {acc_name} [ {{}}, {{}} ], [ {{}}, {{}} ]"),
            &[
                init.into(),
                preheader.into(),
                next_acc.into(),
                body_block.into(),
            ],
        );
        self.dbg_value(acc_variable, function_scope, acc_ty, acc.into());
        self.dbg_value(index_variable, for_scope, Ty::I64, index.into());
        let inner_scope = self.lexical_block(for_scope);
        let element_dbg = self.statement(inner_scope);
        let element_ty = element.ty().name();
        let address = self.body.def(
            Ty::Ptr,
            &format!("getelementptr inbounds {element_ty}, ptr {{}}, i64 {{}}{element_dbg}"),
            &[pointer.into(), index.into()],
        );
        let tbaa = tbaa_tag(&mut self.state.md, element);
        let loaded = self.body.def(
            element.ty(),
            &format!(
                "load {element_ty}, ptr {{}}, align {}{element_dbg}, !tbaa {tbaa}",
                element.bytes()
            ),
            &[address.into()],
        );
        let widened = self.convert(loaded.into(), element, acc_ty, &element_dbg);
        let step_dbg = self.statement(inner_scope);
        let folded = if self.state.rng.chance(40) {
            let factor = Operand::Imm(self.state.rng.range(2, 9));
            let scaled = self.binary(BinOp::Mul, acc_scalar, widened, factor, &step_dbg);
            let element_variable = self.variable(inner_scope, CType::Scalar(acc_scalar), None);
            self.dbg_value(element_variable, inner_scope, acc_ty, scaled.into());
            Operand::Val(scaled)
        } else {
            widened
        };
        let op = *self
            .state
            .rng
            .pick(&[BinOp::Add, BinOp::Add, BinOp::Xor, BinOp::Sub]);
        let combine = match op {
            BinOp::Add => {
                if acc_scalar.is_signed() {
                    "add nsw"
                } else {
                    "add"
                }
            }
            BinOp::Sub => {
                if acc_scalar.is_signed() {
                    "sub nsw"
                } else {
                    "sub"
                }
            }
            _ => "xor",
        };
        self.body.define(
            next_acc,
            &format!("{combine} {acc_name} {{}}, {{}}{step_dbg}"),
            &[acc.into(), folded.into()],
        );
        self.dbg_value(acc_variable, function_scope, acc_ty, next_acc.into());
        if self.state.rng.chance(30) {
            // `p[i] = acc;` writes the running value back.
            let stored = self.convert(next_acc.into(), acc_scalar, element.ty(), &step_dbg);
            self.body.inst(
                &format!(
                    "store {element_ty} {{}}, ptr {{}}, align {}{step_dbg}, !tbaa {tbaa}",
                    element.bytes()
                ),
                &[stored.into(), address.into()],
            );
        }
        self.body.define(
            next_index,
            &format!("add nuw nsw i64 {{}}, 1{loop_dbg}"),
            &[index.into()],
        );
        self.dbg_value(index_variable, for_scope, Ty::I64, next_index.into());
        let done = self.body.def(
            Ty::I1,
            &format!("icmp eq i64 {{}}, {{}}{loop_dbg}"),
            &[next_index.into(), wide.into()],
        );
        let loop_id = self.loop_metadata(loop_location);
        self.body.cond_br(
            done,
            exit,
            body_block,
            &format!("{loop_dbg}, !llvm.loop {loop_id}"),
        );

        self.body.switch_to(exit);
        let result = self.body.def(
            acc_ty,
            &format!("phi {acc_name} [ {{}}, {{}} ], [ {{}}, {{}} ]{loop_dbg}"),
            &[
                init.into(),
                entry.into(),
                next_acc.into(),
                body_block.into(),
            ],
        );
        self.dbg_value(acc_variable, function_scope, acc_ty, result.into());
        self.available.push((result, acc_scalar));
    }

    /// `for (c = 0; x; c++) x &= x - 1;` (popcount), a loop with no memory access.
    fn bit_loop(&mut self) {
        let scalar = self.pick_width().with_sign(false);
        let ty = scalar.ty();
        let name = ty.name();
        let scope = self.subprogram;
        let dbg = self.statement(scope);
        let start = self.pick_as(ty, &dbg);
        let bits_variable = self.variable(scope, CType::Scalar(scalar), None);
        let count_variable = self.variable(scope, CType::Scalar(Scalar::Int), None);
        self.dbg_value(bits_variable, scope, ty, start);
        self.dbg_value(count_variable, scope, Ty::I32, Operand::Imm(0));
        let loop_dbg = self.statement(scope);
        let loop_location = self.state.md.intern(format!(
            "!DILocation(line: {}, column: 3, scope: {scope})",
            self.line
        ));
        let entry = self.body.current();
        let body_block = self.body.new_block();
        let exit = self.body.new_block();
        let is_zero = self.body.def(
            Ty::I1,
            &format!("icmp eq {name} {{}}, 0{loop_dbg}"),
            &[start.into()],
        );
        self.body.cond_br(is_zero, exit, body_block, &loop_dbg);
        self.body.switch_to(body_block);
        let next_count = self.body.reserve(Ty::I32);
        let next_bits = self.body.reserve(ty);
        let count = self.body.def(
            Ty::I32,
            "phi i32 [ {}, {} ], [ 0, {} ]",
            &[next_count.into(), body_block.into(), entry.into()],
        );
        let bits = self.body.def(
            ty,
            &format!("phi {name} [ {{}}, {{}} ], [ {{}}, {{}} ]"),
            &[
                next_bits.into(),
                body_block.into(),
                start.into(),
                entry.into(),
            ],
        );
        self.dbg_value(count_variable, scope, Ty::I32, count.into());
        self.dbg_value(bits_variable, scope, ty, bits.into());
        let step_dbg = self.statement(scope);
        let minus_one = self.body.def(
            ty,
            &format!("add {name} {{}}, -1{step_dbg}"),
            &[bits.into()],
        );
        self.body.define(
            next_bits,
            &format!("and {name} {{}}, {{}}{step_dbg}"),
            &[minus_one.into(), bits.into()],
        );
        self.dbg_value(bits_variable, scope, ty, next_bits.into());
        self.body.define(
            next_count,
            &format!("add nuw nsw i32 {{}}, 1{loop_dbg}"),
            &[count.into()],
        );
        self.dbg_value(count_variable, scope, Ty::I32, next_count.into());
        let done = self.body.def(
            Ty::I1,
            &format!("icmp eq {name} {{}}, 0{loop_dbg}"),
            &[next_bits.into()],
        );
        let loop_id = self.loop_metadata(loop_location);
        self.body.cond_br(
            done,
            exit,
            body_block,
            &format!("{loop_dbg}, !llvm.loop {loop_id}"),
        );
        self.body.switch_to(exit);
        let result = self.body.def(
            Ty::I32,
            &format!("phi i32 [ 0, {{}} ], [ {{}}, {{}} ]{loop_dbg}"),
            &[entry.into(), next_count.into(), body_block.into()],
        );
        self.dbg_value(count_variable, scope, Ty::I32, result.into());
        self.available.push((result, Scalar::Int));
    }

    /// `distinct !{!self, !start, !"llvm.loop.mustprogress"}` as clang attaches to loops.
    fn loop_metadata(&mut self, start: Md) -> Md {
        let progress = self
            .state
            .md
            .intern("!{!\"llvm.loop.mustprogress\"}".to_string());
        let loop_id = self.state.md.reserve();
        self.state.md.set(
            loop_id,
            format!("distinct !{{{loop_id}, {start}, {progress}}}"),
        );
        loop_id
    }

    /// `switch (k) { case ...: r = ...; break; ... default: r = ...; }`.
    fn switch(&mut self) {
        let scalar = self.pick_width();
        let ty = scalar.ty();
        let name = ty.name();
        let scope = self.subprogram;
        let dbg = self.statement(scope);
        let selector = self.pick_as(Ty::I32, &dbg);
        let Operand::Val(selector) = selector else {
            return self.arithmetic();
        };
        let result_variable = self.variable(scope, CType::Scalar(scalar), None);
        let case_scope = self.lexical_block(scope);
        let entry = self.body.current();
        let case_count = self.state.rng.range(3, 7) as usize;
        let mut case_values: Vec<i64> = Vec::new();
        let mut next_case = self.state.rng.range(-2, 3);
        for _ in 0..case_count {
            case_values.push(next_case);
            next_case += self.state.rng.range(1, 4);
        }
        let case_blocks: Vec<Block> = (1..case_count).map(|_| self.body.new_block()).collect();
        let default = self.body.new_block();
        let join = self.body.new_block();
        // The first case jumps straight to the join with a constant, as clang's switch-to-phi does.
        let mut targets: Vec<(i64, Block)> = vec![(case_values[0], join)];
        targets.extend(
            case_values[1..]
                .iter()
                .copied()
                .zip(case_blocks.iter().copied()),
        );
        self.body.switch(selector, default, &targets, &dbg);
        let mut incoming: Vec<(Operand, Block)> =
            vec![(Operand::Imm(self.state.rng.range(-9, 99)), entry)];
        for &block in &case_blocks {
            self.body.switch_to(block);
            let case_dbg = self.statement(case_scope);
            let value = if self.state.rng.chance(40) {
                let constant = Operand::Imm(self.state.rng.range(-50, 500));
                self.dbg_value(result_variable, scope, ty, constant);
                constant
            } else {
                let lhs = self.pick_as(ty, &case_dbg);
                let op = *self.state.rng.pick(&BIN_OPS);
                let rhs = Operand::Imm(self.small_constant());
                let value = self.binary(op, scalar, lhs, rhs, &case_dbg);
                self.dbg_value(result_variable, scope, ty, value.into());
                Operand::Val(value)
            };
            self.body.br(join, &case_dbg);
            incoming.push((value, block));
        }
        self.body.switch_to(default);
        let default_dbg = self.statement(case_scope);
        let lhs = self.pick_as(ty, &default_dbg);
        let mask = Operand::Imm(self.small_constant());
        let value = self.binary(BinOp::Xor, scalar, lhs, mask, &default_dbg);
        self.dbg_value(result_variable, scope, ty, value.into());
        self.body.br(join, &default_dbg);
        incoming.push((value.into(), default));

        self.body.switch_to(join);
        let mut template = format!("phi {name} ");
        let mut args: Vec<Arg> = Vec::new();
        for (position, (value, block)) in incoming.into_iter().enumerate() {
            if position > 0 {
                template.push_str(", ");
            }
            template.push_str("[ {}, {} ]");
            args.push(value.into());
            args.push(block.into());
        }
        template.push_str(&dbg);
        let merged = self.body.def(ty, &template, &args);
        self.dbg_value(result_variable, scope, ty, merged.into());
        self.available.push((merged, scalar));
    }

    /// `p[k] = x; y = p[j];` through a pointer parameter with constant offsets.
    fn memory(&mut self) {
        if self.pointers.is_empty() {
            return self.arithmetic();
        }
        let (pointer, element) = *self.state.rng.pick(&self.pointers.clone());
        let scope = self.subprogram;
        let dbg = self.statement(scope);
        let element_ty = element.ty().name();
        let align = element.bytes();
        let tbaa = tbaa_tag(&mut self.state.md, element);
        let store_slot = self.state.rng.range(0, 7);
        let address = self.element_address(pointer, element, store_slot, &dbg);
        let stored = self.pick_as(element.ty(), &dbg);
        self.body.inst(
            &format!("store {element_ty} {{}}, ptr {{}}, align {align}{dbg}, !tbaa {tbaa}"),
            &[stored.into(), address.into()],
        );
        let load_dbg = self.statement(scope);
        // A load from the slot just stored would be forwarded by clang: use another one.
        let load_slot = (store_slot + self.state.rng.range(1, 7)) % 8;
        let address = self.element_address(pointer, element, load_slot, &load_dbg);
        let loaded = self.body.def(
            element.ty(),
            &format!("load {element_ty}, ptr {{}}, align {align}{load_dbg}, !tbaa {tbaa}"),
            &[address.into()],
        );
        self.name_value(loaded, element);
    }

    /// The address of `pointer[slot]`: the pointer itself or a byte-offset GEP, as clang -O2 prints.
    fn element_address(&mut self, pointer: Value, element: Scalar, slot: i64, dbg: &str) -> Value {
        if slot == 0 {
            return pointer;
        }
        self.common_def(
            Ty::Ptr,
            &format!(
                "getelementptr inbounds i8, ptr {{}}, i64 {}",
                slot * element.bytes()
            ),
            &[pointer.into()],
            dbg,
        )
    }

    /// A call to a function defined earlier in the module.
    fn call_generated(&mut self) {
        if self.index == 0 {
            return self.arithmetic();
        }
        // Prefer a callee whose pointer parameters this function can supply.
        for _ in 0..4 {
            let callee = &self.signatures[self.state.rng.index(self.index)];
            let needs_pointer = callee
                .params
                .iter()
                .any(|param| matches!(param, CType::Ptr(_)));
            if needs_pointer && self.pointers.is_empty() {
                continue;
            }
            let name = callee.name.clone();
            let (ret, params) = (callee.ret, callee.params.clone());
            return self.call(&name, ret, &params);
        }
        self.arithmetic()
    }

    /// A call to one of the module's external (declared only) functions.
    fn call_external(&mut self) {
        let index = self.state.rng.index(EXTERNALS.len());
        let external = &EXTERNALS[index];
        let needs_pointer = external
            .params
            .iter()
            .any(|param| matches!(param, CType::Ptr(_)));
        if needs_pointer && self.pointers.is_empty() {
            return self.arithmetic();
        }
        self.state.external_subprogram(index);
        self.call(external.name, external.ret, external.params);
    }

    fn call(&mut self, callee: &str, ret: Option<Scalar>, params: &[CType]) {
        let scope = self.subprogram;
        let dbg = self.statement(scope);
        let mut args: Vec<Arg> = Vec::new();
        let mut holes: Vec<String> = Vec::new();
        for &param in params {
            match param {
                CType::Scalar(scalar) => {
                    let value = self.pick_as(scalar.ty(), &dbg);
                    holes.push(format!(
                        "{} noundef {}{{}}",
                        scalar.ty().name(),
                        scalar.extension_attr()
                    ));
                    args.push(value.into());
                }
                CType::Ptr(_) => {
                    let (pointer, _) = *self.state.rng.pick(&self.pointers.clone());
                    holes.push("ptr noundef {}".to_string());
                    args.push(pointer.into());
                }
            }
        }
        let arguments = holes.join(", ");
        match ret {
            Some(scalar) => {
                let template = format!(
                    "tail call {}{} @{callee}({arguments}){dbg}",
                    scalar.extension_attr(),
                    scalar.ty().name()
                );
                let value = self.body.def(scalar.ty(), &template, &args);
                self.name_value(value, scalar);
            }
            None => {
                let template = format!("tail call void @{callee}({arguments}){dbg}");
                self.body.inst(&template, &args);
            }
        }
    }

    /// The return statement. Every result no instruction uses yet is folded
    /// into the returned value first (clang -O2 output has no dead
    /// instructions); a `void` function stores it through its first pointer
    /// parameter, or passes it to `ext_sink` when it has none.
    fn finish(&mut self) {
        let scope = self.subprogram;
        let dbg = self.statement(scope);
        let ret = self.signatures[self.index].ret;
        let work = match ret {
            Some(scalar) if scalar.ty() == Ty::I64 => scalar,
            Some(scalar) => Scalar::Int.with_sign(scalar.is_signed()),
            None => Scalar::Int,
        };
        let pending: Vec<(Value, Scalar)> = self
            .available
            .iter()
            .copied()
            .filter(|&(value, _)| !self.body.is_used(value) && !self.body.is_param(value))
            .collect();
        let mut folded: Option<Operand> = None;
        for (value, scalar) in pending {
            let operand = self.convert(value.into(), scalar, work.ty(), &dbg);
            folded = Some(match folded {
                None => operand,
                Some(previous) => {
                    let op = *self.state.rng.pick(&[BinOp::Add, BinOp::Xor, BinOp::Or]);
                    self.binary(op, work, previous, operand, &dbg).into()
                }
            });
        }
        let result = match folded {
            Some(operand) => operand,
            None => self.pick_as(work.ty(), &dbg),
        };
        match ret {
            Some(scalar) => {
                let value = self.convert(result, work, scalar.ty(), &dbg);
                self.body.inst(
                    &format!("ret {} {{}}{dbg}", scalar.ty().name()),
                    &[value.into()],
                );
            }
            None => {
                if let Some(&(pointer, element)) = self.pointers.first() {
                    let value = self.convert(result, work, element.ty(), &dbg);
                    let tbaa = tbaa_tag(&mut self.state.md, element);
                    self.body.inst(
                        &format!(
                            "store {} {{}}, ptr {{}}, align {}{dbg}, !tbaa {tbaa}",
                            element.ty().name(),
                            element.bytes()
                        ),
                        &[value.into(), pointer.into()],
                    );
                } else {
                    self.state.external_subprogram(0);
                    self.body.inst(
                        &format!(
                            "tail call void @{}(i32 noundef {{}}){dbg}",
                            EXTERNALS[0].name
                        ),
                        &[result.into()],
                    );
                }
                self.body.inst(&format!("ret void{dbg}"), &[]);
            }
        }
    }
}
