//! Function bodies under construction.
//!
//! In: instructions and debug records appended block by block, their operands
//! naming values and blocks by opaque ids. Out: the body as LLVM prints it,
//! with unnamed values and block labels numbered `%0, %1, ...` in textual
//! order and a `; preds = ...` comment on every labelled block. Values can be
//! reserved before their definition is written (loop phis name values of the
//! loop body), so every use is resolved when the body is printed, not before.

use std::fmt::Write;

/// An SSA value of the body under construction (a parameter or an instruction result).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Value(usize);

/// A basic block of the body under construction.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Block(usize);

/// The IR types the generator writes: integers and opaque pointers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ty {
    /// `i1`, the result of `icmp`.
    I1,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `ptr`
    Ptr,
}

impl Ty {
    /// The type as LLVM IR spells it.
    pub fn name(self) -> &'static str {
        match self {
            Ty::I1 => "i1",
            Ty::I8 => "i8",
            Ty::I16 => "i16",
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::Ptr => "ptr",
        }
    }

    /// Width in bits (pointers are 64 bits wide on x86-64).
    pub fn bits(self) -> u32 {
        match self {
            Ty::I1 => 1,
            Ty::I8 => 8,
            Ty::I16 => 16,
            Ty::I32 => 32,
            Ty::I64 | Ty::Ptr => 64,
        }
    }
}

/// An operand that is either a value or an integer constant.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Operand {
    /// An SSA value.
    Val(Value),
    /// An integer literal.
    Imm(i64),
}

impl From<Value> for Operand {
    fn from(value: Value) -> Self {
        Operand::Val(value)
    }
}

/// What fills one `{}` of a line template.
#[derive(Clone, Debug)]
pub enum Arg {
    /// A value or constant.
    Op(Operand),
    /// A block label reference (`%N`).
    Blk(Block),
    /// Literal text (types, metadata references, names).
    Text(String),
}

impl From<Value> for Arg {
    fn from(value: Value) -> Self {
        Arg::Op(Operand::Val(value))
    }
}

impl From<Operand> for Arg {
    fn from(operand: Operand) -> Self {
        Arg::Op(operand)
    }
}

impl From<Block> for Arg {
    fn from(block: Block) -> Self {
        Arg::Blk(block)
    }
}

impl From<i64> for Arg {
    fn from(imm: i64) -> Self {
        Arg::Op(Operand::Imm(imm))
    }
}

impl From<&str> for Arg {
    fn from(text: &str) -> Self {
        Arg::Text(text.to_string())
    }
}

impl From<String> for Arg {
    fn from(text: String) -> Self {
        Arg::Text(text)
    }
}

impl From<Ty> for Arg {
    fn from(ty: Ty) -> Self {
        Arg::Text(ty.name().to_string())
    }
}

#[derive(Debug)]
enum Part {
    Text(String),
    Val(Value),
    Blk(Block),
}

#[derive(Debug)]
struct Line {
    /// Debug records are indented four spaces, instructions two.
    is_record: bool,
    defines: Option<Value>,
    parts: Vec<Part>,
}

#[derive(Debug, Default)]
struct BlockData {
    lines: Vec<Line>,
    preds: Vec<Block>,
}

/// A function body: parameters, then blocks in the order they are printed.
#[derive(Debug)]
pub struct Body {
    value_types: Vec<Ty>,
    defined: Vec<bool>,
    /// Whether an instruction (not a debug record) uses the value.
    used: Vec<bool>,
    params: Vec<Value>,
    blocks: Vec<BlockData>,
    current: Block,
}

impl Body {
    /// An empty body with parameters of the given types and an entry block, which is current.
    pub fn new(param_types: &[Ty]) -> Self {
        let mut body = Body {
            value_types: Vec::new(),
            defined: Vec::new(),
            used: Vec::new(),
            params: Vec::new(),
            blocks: vec![BlockData::default()],
            current: Block(0),
        };
        for &ty in param_types {
            let value = body.reserve(ty);
            body.defined[value.0] = true;
            body.params.push(value);
        }
        body
    }

    /// The `index`th parameter.
    pub fn param(&self, index: usize) -> Value {
        self.params[index]
    }

    /// The IR type of a value.
    pub fn ty(&self, value: Value) -> Ty {
        self.value_types[value.0]
    }

    /// Whether an instruction written so far uses `value` (debug records do not count).
    pub fn is_used(&self, value: Value) -> bool {
        self.used[value.0]
    }

    /// Whether `value` is a parameter.
    pub fn is_param(&self, value: Value) -> bool {
        self.params.contains(&value)
    }

    /// The block instructions are appended to.
    pub fn current(&self) -> Block {
        self.current
    }

    /// A new empty block, printed after every block created before it.
    pub fn new_block(&mut self) -> Block {
        self.blocks.push(BlockData::default());
        Block(self.blocks.len() - 1)
    }

    /// Makes `block` the one instructions are appended to.
    pub fn switch_to(&mut self, block: Block) {
        self.current = block;
    }

    /// A value of type `ty` whose defining instruction is written later with [`Body::define`].
    pub fn reserve(&mut self, ty: Ty) -> Value {
        self.value_types.push(ty);
        self.defined.push(false);
        self.used.push(false);
        Value(self.value_types.len() - 1)
    }

    /// Appends the instruction `template` (with `{}` filled from `args`) defining `value`.
    pub fn define(&mut self, value: Value, template: &str, args: &[Arg]) {
        assert!(!self.defined[value.0], "value {value:?} defined twice");
        self.defined[value.0] = true;
        self.push(false, Some(value), template, args);
    }

    /// Appends an instruction defining a new value of type `ty` and returns the value.
    pub fn def(&mut self, ty: Ty, template: &str, args: &[Arg]) -> Value {
        let value = self.reserve(ty);
        self.define(value, template, args);
        value
    }

    /// Appends an instruction without a result (store, void call).
    pub fn inst(&mut self, template: &str, args: &[Arg]) {
        self.push(false, None, template, args);
    }

    /// Appends a debug record (`#dbg_value(...)`).
    pub fn record(&mut self, template: &str, args: &[Arg]) {
        self.push(true, None, template, args);
    }

    /// Ends the current block with `br label %to` (`suffix` follows, e.g. `, !dbg !7`).
    pub fn br(&mut self, to: Block, suffix: &str) {
        self.add_edge(to);
        self.inst(&format!("br label {{}}{suffix}"), &[to.into()]);
    }

    /// Ends the current block with a conditional branch on `cond`.
    pub fn cond_br(&mut self, cond: Value, if_true: Block, if_false: Block, suffix: &str) {
        self.add_edge(if_true);
        if if_false != if_true {
            self.add_edge(if_false);
        }
        self.inst(
            &format!("br i1 {{}}, label {{}}, label {{}}{suffix}"),
            &[cond.into(), if_true.into(), if_false.into()],
        );
    }

    /// Ends the current block with a `switch` on `value` (type `ty`) over distinct `cases`.
    pub fn switch(&mut self, value: Value, default: Block, cases: &[(i64, Block)], suffix: &str) {
        let ty = self.ty(value).name();
        self.add_edge(default);
        let mut template = format!("switch {ty} {{}}, label {{}} [\n");
        let mut args: Vec<Arg> = vec![value.into(), default.into()];
        for &(case, target) in cases {
            self.add_edge(target);
            template.push_str(&format!("    {ty} {case}, label {{}}\n"));
            args.push(target.into());
        }
        template.push_str(&format!("  ]{suffix}"));
        self.inst(&template, &args);
    }

    fn add_edge(&mut self, to: Block) {
        let from = self.current;
        let preds = &mut self.blocks[to.0].preds;
        if !preds.contains(&from) {
            preds.push(from);
        }
    }

    fn push(&mut self, is_record: bool, defines: Option<Value>, template: &str, args: &[Arg]) {
        let mut parts = Vec::new();
        let mut pieces = template.split("{}");
        let mut args_iter = args.iter();
        if let Some(first) = pieces.next() {
            parts.push(Part::Text(first.to_string()));
        }
        for piece in pieces {
            let arg = args_iter
                .next()
                .unwrap_or_else(|| panic!("template {template:?} has more holes than arguments"));
            parts.push(match arg {
                Arg::Op(Operand::Val(value)) => {
                    if !is_record {
                        self.used[value.0] = true;
                    }
                    Part::Val(*value)
                }
                Arg::Op(Operand::Imm(imm)) => Part::Text(imm.to_string()),
                Arg::Blk(block) => Part::Blk(*block),
                Arg::Text(text) => Part::Text(text.clone()),
            });
            parts.push(Part::Text(piece.to_string()));
        }
        assert!(
            args_iter.next().is_none(),
            "template {template:?} has fewer holes than arguments"
        );
        let block = self.current.0;
        self.blocks[block].lines.push(Line {
            is_record,
            defines,
            parts,
        });
    }

    /// Appends the body (everything between `{` and `}`) to `out`, numbering values
    /// and labels in textual order as LLVM does.
    ///
    /// Panics if a value is used but never defined: that is a generator bug.
    pub fn print(&self, out: &mut String) {
        let (value_numbers, block_numbers) = self.number();
        let name = |part: &Part| -> String {
            match part {
                Part::Text(text) => text.clone(),
                Part::Val(value) => match value_numbers[value.0] {
                    Some(number) => format!("%{number}"),
                    None => panic!("value {value:?} is used but never defined"),
                },
                Part::Blk(block) => format!("%{}", block_numbers[block.0]),
            }
        };
        for (index, block) in self.blocks.iter().enumerate() {
            if index > 0 {
                let label = format!("\n{}:", block_numbers[index]);
                let preds: Vec<String> = block
                    .preds
                    .iter()
                    .map(|pred| format!("%{}", block_numbers[pred.0]))
                    .collect();
                // LLVM pads the label to column 50 before the preds comment.
                let _ = writeln!(out, "{label:<51}; preds = {}", preds.join(", "));
            }
            for line in &block.lines {
                out.push_str(if line.is_record { "    " } else { "  " });
                if let Some(value) = line.defines {
                    let _ = write!(out, "{} = ", name(&Part::Val(value)));
                }
                for part in &line.parts {
                    out.push_str(&name(part));
                }
                out.push('\n');
            }
        }
    }

    fn number(&self) -> (Vec<Option<usize>>, Vec<usize>) {
        let mut value_numbers = vec![None; self.value_types.len()];
        let mut block_numbers = vec![0; self.blocks.len()];
        let mut next = 0;
        for param in &self.params {
            value_numbers[param.0] = Some(next);
            next += 1;
        }
        for (index, block) in self.blocks.iter().enumerate() {
            block_numbers[index] = next;
            next += 1;
            for line in &block.lines {
                if let Some(value) = line.defines {
                    value_numbers[value.0] = Some(next);
                    next += 1;
                }
            }
        }
        (value_numbers, block_numbers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_values_and_labels_in_textual_order_with_forward_phi_uses() {
        let mut body = Body::new(&[Ty::I32]);
        let n = body.param(0);
        let entry = body.current();
        let looped = body.new_block();
        let exit = body.new_block();
        let positive = body.def(Ty::I1, "icmp sgt i32 {}, 0", &[n.into()]);
        body.cond_br(positive, looped, exit, "");
        body.switch_to(looped);
        let next = body.reserve(Ty::I32);
        let i = body.def(
            Ty::I32,
            "phi i32 [ 0, {} ], [ {}, {} ]",
            &[entry.into(), next.into(), looped.into()],
        );
        body.record("#dbg_value(i32 {}, !9, !DIExpression(), !10)", &[i.into()]);
        body.define(next, "add nuw nsw i32 {}, 1", &[i.into()]);
        let done = body.def(Ty::I1, "icmp eq i32 {}, {}", &[next.into(), n.into()]);
        body.cond_br(done, exit, looped, ", !llvm.loop !11");
        body.switch_to(exit);
        body.inst("ret i32 {}", &[(-1).into()]);
        let mut out = String::new();
        body.print(&mut out);
        assert_eq!(
            out,
            "  %2 = icmp sgt i32 %0, 0
  br i1 %2, label %3, label %7

3:                                                ; preds = %1, %3
  %4 = phi i32 [ 0, %1 ], [ %5, %3 ]
    #dbg_value(i32 %4, !9, !DIExpression(), !10)
  %5 = add nuw nsw i32 %4, 1
  %6 = icmp eq i32 %5, %0
  br i1 %6, label %7, label %3, !llvm.loop !11

7:                                                ; preds = %1, %3
  ret i32 -1
"
        );
    }

    #[test]
    #[should_panic(expected = "used but never defined")]
    fn printing_an_undefined_use_is_a_generator_bug() {
        let mut body = Body::new(&[]);
        let ghost = body.reserve(Ty::I32);
        body.inst("ret i32 {}", &[ghost.into()]);
        body.print(&mut String::new());
    }
}
