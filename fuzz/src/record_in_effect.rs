//! The IR's own debug record for a variable where a line's code runs: the
//! last `#dbg_value` or `#dbg_assign` of the variable before an
//! instruction of that line, in the same block of the IR. When every value
//! that record can give is known (constants, registers cut down by a small
//! mask, and `i1` registers) and the value a build showed is one of them, the IR itself
//! says the variable holds that value there: a wrong value shown there is
//! clang's, not the back end's (csmith 209029: loop deletion leaves p_6's
//! value after the loop, `7 - (x & 1)`, in front of the store LICM sank out
//! of the loop body, which keeps the body's line 265).
//!
//! And the IR's only record of a variable ([`ir_only_record`]): with one
//! record the IR describes none of the variable's later assignments, so
//! that record is in effect everywhere after it; a value the variable held
//! elsewhere in its function, shown where the oracle holds another, is the
//! IR's stale claim, not the back end's.
//!
//! And the record in effect, through blocks with one predecessor, at code
//! of a line the IR placed before the record of the value the oracle holds
//! there ([`ir_record_before_assignment`]): the value before that
//! assignment, shown there, is what the IR says the variable holds.
//!
//! And the record in effect at a line when no record of the variable can
//! give the value it holds there ([`ir_stale_record_in_effect`]): the IR
//! describes that value nowhere, and a value the variable held elsewhere,
//! shown there under that record, is again the IR's stale claim.

use std::collections::{BTreeSet, HashMap};

use crate::debug_info::{declaration_ids, known_bits, shown_number};

/// The record line of the IR that gives `variable` (`name@line`) the value
/// gdb shows as `shown` where an instruction located at `line` runs, in
/// whichever function the variable's code was inlined into (see the module
/// doc); `None` when there is none.
pub fn ir_record_in_effect<'t>(
    ir: &'t str,
    line: u32,
    variable: &str,
    shown: &str,
) -> Option<&'t str> {
    let shown = shown_number(shown)?;
    let ids = declaration_ids(ir, variable);
    records_at_line(ir, line, &ids)
        .into_iter()
        .find(|(record, registers)| {
            parse_record(record)
                .and_then(|r| possible_values(&r, registers))
                .is_some_and(|values| values.fits(shown))
        })
        .map(|(record, _)| record)
}

/// The record of `variable` in effect where an instruction located at
/// `line` runs (as for [`ir_record_in_effect`]) when it is the IR's stale
/// claim: the record can give `shown`, a value the variable held elsewhere
/// in its function (`held`), and no record of the variable anywhere in the
/// IR can give a value the oracle holds at that line (`held_here`), so the
/// IR describes the variable's value there nowhere. `None` otherwise.
/// csmith 225253: clang sinks the load of `func_6`'s argument `g_17`, and
/// with it the record `p_7 = zext(%51)`, past the record of `p_7 = -14`
/// that starts a loop it then deletes; the loop's `--p_7` has no record,
/// and line 273, after the loop, where gcc -O0 holds -17, runs under
/// `zext(%51)`: a 16-bit value zero-extended, never -17.
pub fn ir_stale_record_in_effect<'t>(
    ir: &'t str,
    line: u32,
    variable: &str,
    shown: &str,
    held_here: &[String],
    held: &[String],
) -> Option<&'t str> {
    let (shown, held_here) = shown_held_elsewhere(shown, held, held_here)?;
    let ids = declaration_ids(ir, variable);
    let describes_held_here = ir.lines().filter_map(parse_record).any(|record| {
        ids.contains(&record.variable) && held_here.iter().any(|&v| can_give(&record, v))
    });
    if describes_held_here {
        return None;
    }
    records_at_line(ir, line, &ids)
        .into_iter()
        .map(|(record, _)| record)
        .find(|record| parse_record(record).is_some_and(|r| can_give(&r, shown)))
}

/// gdb's `shown` as a number, when it is one of `elsewhere` (values the
/// variable held elsewhere), with the values of `held_here` (what the
/// oracle holds where it was shown; not empty, every one a number).
fn shown_held_elsewhere(
    shown: &str,
    elsewhere: &[String],
    held_here: &[String],
) -> Option<(i128, Vec<i128>)> {
    let shown = shown_number(shown)?;
    if !elsewhere.iter().any(|h| shown_number(h) == Some(shown)) {
        return None;
    }
    let held_here: Vec<i128> = held_here
        .iter()
        .map(|h| shown_number(h))
        .collect::<Option<_>>()?;
    (!held_here.is_empty()).then_some((shown, held_here))
}

/// The record of `variable` in effect where an instruction located at
/// `line` runs, followed back through blocks with one predecessor, when
/// that instruction runs before the IR's record of the value the oracle
/// holds there: the record can give `shown`, a value the variable held at
/// an earlier line (`held_before`), and a later record of the IR can give a
/// value of `held_here`. The IR put code of the line before the
/// assignment the oracle has already made; a debugger stopped there shows
/// the value before it. `None` otherwise. csmith 226247: the load of
/// `g_37[6][4]` for line 179 is hoisted into a branch before the block
/// whose record makes `p_16 = 0xBFB92B52` (line 178); there `p_16` still
/// holds its argument value, -15, where gcc -O0 holds -1078383790.
pub fn ir_record_before_assignment<'t>(
    ir: &'t str,
    line: u32,
    variable: &str,
    shown: &str,
    held_here: &[String],
    held_before: &[String],
) -> Option<&'t str> {
    let (shown, held_here) = shown_held_elsewhere(shown, held_before, held_here)?;
    let ids = declaration_ids(ir, variable);
    let lines: Vec<&str> = ir.lines().collect();
    let locations = location_lines(ir);
    let at_line = |text: &str| {
        text.split_once("!dbg !")
            .and_then(|(_, id)| locations.get(id.split([',', ' ']).next()?))
            == Some(&line)
    };
    let record_of_variable = |text: &'t str| -> Option<Record<'t>> {
        parse_record(text).filter(|record| ids.contains(&record.variable))
    };
    (0..lines.len())
        .filter(|&i| parse_record(lines[i]).is_none() && at_line(lines[i]))
        .find_map(|i| {
            let at = record_through_single_predecessors(&lines, i, &record_of_variable)?;
            let record = record_of_variable(lines[at])?;
            let later_gives_held = lines[at + 1..]
                .iter()
                .take_while(|text| !text.starts_with("define "))
                .filter_map(|text| record_of_variable(text))
                .any(|later| held_here.iter().any(|&v| can_give(&later, v)));
            (can_give(&record, shown) && later_gives_held).then_some(lines[at])
        })
}

/// The index of the last line before `lines[at]` that `is_record` accepts,
/// in its block or, from a block with one predecessor, in that
/// predecessor (and on); `None` at a block with several predecessors or
/// none, or at the function's start.
fn record_through_single_predecessors<'t, R>(
    lines: &[&'t str],
    at: usize,
    is_record: &dyn Fn(&'t str) -> Option<R>,
) -> Option<usize> {
    let function_start = (0..at).rev().find(|&j| lines[j].starts_with("define "))?;
    let function_end = (at..lines.len()).find(|&j| lines[j].starts_with('}'))?;
    let mut i = at;
    // A block is entered at most once: a loop of single predecessors ends.
    let mut visited = BTreeSet::new();
    loop {
        i = i.checked_sub(1)?;
        let text = lines[i];
        if i == function_start {
            return None;
        }
        if is_record(text).is_some() {
            return Some(i);
        }
        if !is_block_label(text) {
            continue;
        }
        let predecessors = text.split_once("; preds = ")?.1;
        let [predecessor] = predecessors.split(", ").collect::<Vec<_>>()[..] else {
            return None;
        };
        let label = format!("{}:", predecessor.strip_prefix('%')?);
        if !visited.insert(label.clone()) {
            return None;
        }
        // The predecessor's end: the next block's label (or the function's
        // closing brace) after its own label; the entry block has none.
        let start = (function_start..function_end)
            .find(|&j| {
                lines[j]
                    .split_whitespace()
                    .next()
                    .is_some_and(|first| first == label)
            })
            .unwrap_or(function_start);
        i = (start + 1..=function_end).find(|&j| is_block_label(lines[j]) || j == function_end)?;
    }
}

/// The record of one of the variables `ids` in effect at each instruction
/// located at `line` (the last record of them before it in its block), with
/// the values each of its register operands can hold when the function
/// defined it before the record as a `select` of two integer constants.
fn records_at_line<'t>(
    ir: &'t str,
    line: u32,
    ids: &[&str],
) -> Vec<(&'t str, Vec<Option<Values>>)> {
    let lines = location_lines(ir);
    let mut in_effect: Option<&str> = None;
    let mut selects: HashMap<&str, Values> = HashMap::new();
    let mut found = Vec::new();
    for text in ir.lines() {
        if text.starts_with("define ") {
            selects.clear();
        }
        if is_block_label(text) || text.starts_with("define ") {
            in_effect = None;
            continue;
        }
        if let Some(record) = parse_record(text) {
            if ids.contains(&record.variable) {
                in_effect = Some(text);
            }
            continue;
        }
        if let Some((name, values)) = select_of_constants(text) {
            selects.insert(name, values);
        }
        let at_line = text
            .split_once("!dbg !")
            .and_then(|(_, id)| lines.get(id.split([',', ' ']).next()?));
        if at_line == Some(&line) {
            if let Some(record) = in_effect {
                let registers = parse_record(record)
                    .map(|r| {
                        r.operands
                            .iter()
                            .map(|o| o.split_once(' ').and_then(|(_, v)| selects.get(v).cloned()))
                            .collect()
                    })
                    .unwrap_or_default();
                found.push((record, registers));
            }
        }
    }
    found
}

/// The register an IR line defines and the two values it can hold, when
/// the line is `%r = select i1 %c, iN A, iN B` with constants A and B (csmith
/// 227234: `%51 = select i1 %50, i32 228, i32 168`, the record's value of
/// an `int32_t` whose source value is -88, 0xA8 sign-extended).
fn select_of_constants(text: &str) -> Option<(&str, Values)> {
    let (name, rest) = text.trim().split_once(" = select ")?;
    let mut fields = rest.split(", ");
    let _condition = fields.next()?;
    let mut constant = || fields.next()?.split_once(' ')?.1.parse::<i128>().ok();
    let (a, b) = (constant()?, constant()?);
    Some((name, Values::Set([a, b].into())))
}

/// Whether `record` can give its variable the value `value`: by the values
/// it can give when they are known, else by the bits its expression fixes
/// over its one register ([`known_bits`]). A record without a value
/// (`poison`, `undef`) gives none; one this does not follow can give any.
fn can_give(record: &Record, value: i128) -> bool {
    if record
        .operands
        .iter()
        .all(|o| o.ends_with(" poison") || o.ends_with(" undef"))
    {
        return false;
    }
    if let Some(values) = possible_values(record, &[]) {
        return values.fits(value);
    }
    let width = match record.operands.as_slice() {
        [operand] if !record.expression.contains("DW_OP_LLVM_arg") => operand
            .split_once(" %")
            .and_then(|(ty, _)| ty.strip_prefix('i')?.parse::<u32>().ok()),
        _ => None,
    };
    width
        .and_then(|width| known_bits(width, record.expression))
        .is_none_or(|bits| bits.fits(value))
}

/// The IR's one record of `variable` (`name@line`), when the IR holds
/// exactly one and gdb's `shown` is among `held` (every value the oracle saw
/// the variable hold in its function); `None` otherwise (see the module
/// doc). csmith 214121: clang drops the record of `p_13 = 12` (a `for`
/// that never runs), and `p_13`'s one record, its parameter value loaded
/// from `g_4[1][2][2]` (1), stays in effect through the rest of the
/// inlined `func_10`, where gcc -O0 holds 12. A record without a value in
/// the function's entry block (an alloca's "not assigned yet") does not
/// count (csmith 215643: `p_5`, whose address escapes, has that and one
/// record of its parameter value; the store of `p_5 = 27`, a `for` that
/// never runs, went with no record of it).
pub fn ir_only_record<'t>(
    ir: &'t str,
    variable: &str,
    shown: &str,
    held: &[String],
) -> Option<&'t str> {
    let shown = shown_number(shown)?;
    if !held.iter().any(|h| shown_number(h) == Some(shown)) {
        return None;
    }
    let ids = declaration_ids(ir, variable);
    // A function's entry block gives an alloca's variable a record without
    // a value (`#dbg_assign(i1 undef, ...)`, "not assigned yet") before
    // anything runs: no assignment the IR describes.
    let mut in_entry = false;
    let mut records = ir.lines().filter(|text| {
        if text.starts_with("define ") {
            in_entry = true;
        } else if is_block_label(text) || text.starts_with('}') {
            in_entry = false;
        }
        parse_record(text).is_some_and(|r| {
            ids.contains(&r.variable)
                && !(in_entry
                    && r.operands
                        .iter()
                        .all(|o| o.ends_with(" undef") || o.ends_with(" poison")))
        })
    });
    let only = records.next()?;
    records.next().is_none().then_some(only)
}

/// The line of every `!DILocation` of the IR, by its metadata number.
fn location_lines(ir: &str) -> HashMap<&str, u32> {
    ir.lines()
        .filter_map(|l| {
            let (id, node) = l.strip_prefix('!')?.split_once(" = ")?;
            let node = node.strip_prefix("distinct ").unwrap_or(node);
            let fields = node.strip_prefix("!DILocation(line: ")?;
            Some((id, fields.split(',').next()?.parse().ok()?))
        })
        .collect()
}

/// Whether an IR line opens a basic block (`5:`, `for.body:  ; preds = ...`).
fn is_block_label(text: &str) -> bool {
    !text.starts_with([' ', '\t'])
        && text
            .split_whitespace()
            .next()
            .is_some_and(|first| first.ends_with(':'))
}

/// One debug record of the IR.
struct Record<'t> {
    /// Its location operands (`i16 0`, `i64 %53`), one unless a `!DIArgList`.
    operands: Vec<&'t str>,
    /// Its variable's metadata number (`!368`).
    variable: &'t str,
    /// Its expression's operations.
    expression: &'t str,
}

/// The record an IR line holds, when it is a `#dbg_value` or `#dbg_assign`.
fn parse_record(text: &str) -> Option<Record<'_>> {
    let call = text.trim();
    let call = call
        .strip_prefix("#dbg_value(")
        .or_else(|| call.strip_prefix("#dbg_assign("))?;
    let (operands, rest) = match call.strip_prefix("!DIArgList(") {
        Some(list) => {
            let (list, rest) = list.split_once("), ")?;
            (list.split(", ").collect(), rest)
        }
        None => {
            let (operand, rest) = call.split_once(", ")?;
            (vec![operand], rest)
        }
    };
    let (variable, rest) = rest.split_once(", ")?;
    let expression = rest
        .strip_prefix("!DIExpression(")
        .and_then(|ops| ops.split_once(')'))
        .map(|(ops, _)| ops)?;
    Some(Record {
        operands,
        variable,
        expression,
    })
}

/// At most this many values are followed in one stack entry.
const MOST_VALUES: usize = 64;

/// What one entry of the expression stack can be.
#[derive(Clone, Debug, PartialEq)]
enum Values {
    /// One of these values.
    Set(BTreeSet<i128>),
    /// Any value (a register, or too many to follow).
    Any,
}

impl Values {
    /// The result of `f` on each value; `Any` stays `Any`.
    fn map(self, f: impl Fn(i128) -> i128) -> Values {
        match self {
            Values::Set(set) => Values::Set(set.into_iter().map(f).collect()),
            Values::Any => Values::Any,
        }
    }

    /// Whether gdb's `shown` (signed or unsigned at any width up to 64) is
    /// one of the values; never for `Any`.
    fn fits(&self, shown: i128) -> bool {
        let Values::Set(set) = self else {
            return false;
        };
        set.iter().any(|&v| {
            v == shown
                || [8u32, 16, 32, 64]
                    .iter()
                    .any(|&w| v.rem_euclid(1 << w) == shown.rem_euclid(1 << w))
        })
    }
}

/// Every value the record can give, from its constant operands, the
/// values known of its register operands (`registers`, by operand index:
/// [`records_at_line`]'s selects of two constants) and its other register
/// operands cut by `DW_OP_and` with a small mask; `None` for an operation
/// this does not follow, or a result that can be any value.
fn possible_values(record: &Record, registers: &[Option<Values>]) -> Option<Values> {
    let operand = |index: usize| -> Option<Values> {
        let (_, value) = record.operands.get(index)?.split_once(' ')?;
        if value == "null" {
            return Some(Values::Set([0].into()));
        }
        if value.starts_with('%') {
            let known = registers.get(index).cloned().flatten();
            // An `i1` register holds 0 or 1 whatever it computes (csmith
            // 228663: `p_31 = zext(%62)`, `%62 = icmp eq i32 %61, -64`).
            let by_type =
                (record.operands[index].starts_with("i1 ")).then(|| Values::Set([0, 1].into()));
            return Some(known.or(by_type).unwrap_or(Values::Any));
        }
        if value == "poison" || value == "undef" {
            return Some(Values::Any);
        }
        value.parse().ok().map(|v| Values::Set([v].into()))
    };
    let mut stack: Vec<Values> = Vec::new();
    if !record.expression.contains("DW_OP_LLVM_arg") {
        stack.push(operand(0)?);
    }
    let mut ops = record.expression.split(", ").filter(|op| !op.is_empty());
    let number = |ops: &mut dyn Iterator<Item = &str>| ops.next()?.parse::<i128>().ok();
    while let Some(op) = ops.next() {
        match op {
            "DW_OP_stack_value" => {}
            "DW_OP_LLVM_arg" => {
                let index = usize::try_from(number(&mut ops)?).ok()?;
                stack.push(operand(index)?);
            }
            "DW_OP_constu" | "DW_OP_consts" => stack.push(Values::Set([number(&mut ops)?].into())),
            "DW_OP_plus_uconst" => {
                let n = number(&mut ops)?;
                let top = stack.pop()?.map(|v| v + n);
                stack.push(top);
            }
            "DW_OP_neg" => {
                let top = stack.pop()?.map(|v| -v);
                stack.push(top);
            }
            "DW_OP_not" => {
                let top = stack.pop()?.map(|v| !v);
                stack.push(top);
            }
            "DW_OP_LLVM_convert" => {
                let width = u32::try_from(number(&mut ops)?).ok()?.min(64);
                let signed = ops.next()? == "DW_ATE_signed";
                let top = stack.pop()?.map(|v| {
                    let unsigned = v.rem_euclid(1 << width);
                    if signed && unsigned >= 1 << (width - 1) {
                        unsigned - (1 << width)
                    } else {
                        unsigned
                    }
                });
                stack.push(top);
            }
            "DW_OP_plus" | "DW_OP_minus" | "DW_OP_mul" | "DW_OP_and" | "DW_OP_or" | "DW_OP_xor" => {
                let b = stack.pop()?;
                let a = stack.pop()?;
                stack.push(binary(op, a, b)?);
            }
            _ => return None,
        }
    }
    match stack.pop()? {
        Values::Any => None,
        values => stack.is_empty().then_some(values),
    }
}

/// The values of `a op b`.
fn binary(op: &str, a: Values, b: Values) -> Option<Values> {
    let apply = |x: i128, y: i128| -> Option<i128> {
        Some(match op {
            "DW_OP_plus" => x + y,
            "DW_OP_minus" => x - y,
            "DW_OP_mul" => x.checked_mul(y)?,
            "DW_OP_and" => x & y,
            "DW_OP_or" => x | y,
            _ => x ^ y,
        })
    };
    match (a, b) {
        (Values::Set(a), Values::Set(b)) => {
            let mut out = BTreeSet::new();
            for &x in &a {
                for &y in &b {
                    out.insert(apply(x, y)?);
                }
            }
            Some(if out.len() > MOST_VALUES {
                Values::Any
            } else {
                Values::Set(out)
            })
        }
        // Any value and a small mask: one of the mask's submasks.
        (Values::Any, Values::Set(mask)) | (Values::Set(mask), Values::Any)
            if op == "DW_OP_and" =>
        {
            let mut all = BTreeSet::new();
            for &m in &mask {
                match submasks(m) {
                    Some(subs) => all.extend(subs),
                    None => return Some(Values::Any),
                }
            }
            Some(Values::Set(all))
        }
        _ => Some(Values::Any),
    }
}

/// Every value `x & mask` can be, when the mask is non-negative with at
/// most six bits set.
fn submasks(mask: i128) -> Option<Vec<i128>> {
    if mask < 0 || mask.count_ones() > 6 {
        return None;
    }
    let mut all = vec![0];
    let mut sub = mask;
    while sub != 0 {
        all.push(sub);
        sub = (sub - 1) & mask;
    }
    Some(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// csmith 209029's func_3, cut down: loop deletion's record of p_6's
    /// value after the loop stands before the store of line 265 (`!513`).
    const IR: &str = "define internal fastcc i16 @func_3(i64 %0) !dbg !358 {\n\
        %53 = and i64 %0, 7, !dbg !356\n\
        br label %54\n\
        \n\
        54:                                                ; preds = %2\n\
        \x20   #dbg_value(!DIArgList(i16 0, i64 %53), !368, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_LLVM_convert, 64, DW_ATE_unsigned, DW_OP_LLVM_convert, 16, DW_ATE_unsigned, DW_OP_constu, 1, DW_OP_and, DW_OP_minus, DW_OP_plus_uconst, 7, DW_OP_stack_value), !491)\n\
        \x20 store ptr null, ptr @g_50, align 16, !dbg !513, !tbaa !514\n\
        \x20 ret i16 0, !dbg !520\n\
        }\n\
        !368 = !DILocalVariable(name: \"p_6\", arg: 3, scope: !358, file: !3, line: 148, type: !362)\n\
        !513 = !DILocation(line: 265, column: 31, scope: !501)\n\
        !520 = !DILocation(line: 272, column: 5, scope: !358)\n";

    #[test]
    fn the_record_before_a_lines_instruction_is_the_irs_value_there() {
        let record = ir_record_in_effect(IR, 265, "p_6@148", "7");
        assert!(record.is_some_and(|r| r.contains("DW_OP_plus_uconst, 7")));
        // 0 - (x & 1) + 7 is 6 or 7 in 16 bits.
        assert!(ir_record_in_effect(IR, 265, "p_6@148", "6").is_some());
        assert!(ir_record_in_effect(IR, 265, "p_6@148", "5").is_none());
        // The record stays in effect to the end of its block (line 272's
        // return); another line or variable has no such record.
        assert!(ir_record_in_effect(IR, 272, "p_6@148", "7").is_some());
        assert!(ir_record_in_effect(IR, 266, "p_6@148", "7").is_none());
        assert!(ir_record_in_effect(IR, 265, "p_7@148", "7").is_none());
    }

    #[test]
    fn a_record_of_a_whole_register_gives_no_known_value() {
        let plain = IR.replace(
            "!DIArgList(i16 0, i64 %53), !368, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_LLVM_convert, 64, DW_ATE_unsigned, DW_OP_LLVM_convert, 16, DW_ATE_unsigned, DW_OP_constu, 1, DW_OP_and, DW_OP_minus, DW_OP_plus_uconst, 7, DW_OP_stack_value)",
            "i16 %53, !368, !DIExpression()",
        );
        assert!(ir_record_in_effect(&plain, 265, "p_6@148", "7").is_none());
    }

    #[test]
    fn a_variables_only_record_is_in_effect_past_assignments_it_never_describes() {
        let held = ["1".to_string(), "12".to_string()];
        let record = ir_only_record(IR, "p_6@148", "1", &held);
        assert!(record.is_some_and(|r| r.contains("!DIArgList(i16 0, i64 %53), !368")));
        // A value the variable never held in its function is not the IR's.
        assert_eq!(ir_only_record(IR, "p_6@148", "5", &held), None);
        // Nor one of a variable with a second record.
        let twice = IR.replace(
            "  store ptr null",
            "    #dbg_value(i16 12, !368, !DIExpression(), !491)\n  store ptr null",
        );
        assert_eq!(ir_only_record(&twice, "p_6@148", "1", &held), None);
        // A record without a value in the entry block is no assignment;
        // one after the entry block is (it ends the location).
        let unassigned = IR.replace(
            "%53 = and",
            "  #dbg_assign(i1 undef, !368, !DIExpression(), !7, ptr %1, !DIExpression(), !491)\n%53 = and",
        );
        assert_ne!(unassigned, IR);
        assert!(ir_only_record(&unassigned, "p_6@148", "1", &held).is_some());
        let ended = IR.replace(
            "  store ptr null",
            "    #dbg_value(i16 poison, !368, !DIExpression(), !491)\n  store ptr null",
        );
        assert_ne!(ended, IR);
        assert_eq!(ir_only_record(&ended, "p_6@148", "1", &held), None);
    }

    /// csmith 225253's func_1, cut down: the record of `p_7`'s argument
    /// value, sunk with its load past the loop's `p_7 = -14`, is in effect
    /// at line 273, after the deleted loop.
    const SUNK: &str = "define internal void @func_1() !dbg !298 {\n\
        48:\n\
        \x20   #dbg_value(i16 poison, !335, !DIExpression(DW_OP_LLVM_convert, 16, DW_ATE_unsigned, DW_OP_LLVM_convert, 64, DW_ATE_unsigned, DW_OP_stack_value), !495)\n\
        \x20   #dbg_value(i64 -14, !335, !DIExpression(), !495)\n\
        \x20 %51 = load i16, ptr @g_17, align 2, !dbg !499, !tbaa !333\n\
        \x20   #dbg_value(i16 %51, !335, !DIExpression(DW_OP_LLVM_convert, 16, DW_ATE_unsigned, DW_OP_LLVM_convert, 64, DW_ATE_unsigned, DW_OP_stack_value), !495)\n\
        \x20 %52 = add i16 %51, -3, !dbg !500\n\
        \x20 %72 = or i8 %65, 1, !dbg !513\n\
        \x20 ret void, !dbg !500\n\
        }\n\
        !335 = !DILocalVariable(name: \"p_7\", arg: 1, scope: !336, file: !3, line: 118, type: !193)\n\
        !499 = !DILocation(line: 71, column: 104, scope: !298, inlinedAt: !330)\n\
        !500 = !DILocation(line: 191, column: 9, scope: !416, inlinedAt: !496)\n\
        !513 = !DILocation(line: 273, column: 132, scope: !483, inlinedAt: !496)\n";

    #[test]
    fn a_record_in_effect_where_no_record_gives_the_value_held_is_stale() {
        let here = ["-17".to_string()];
        let held = ["-14", "-15", "-16", "-17", "38156"].map(String::from);
        let stale = |ir: &str, line: u32, shown: &str| {
            ir_stale_record_in_effect(ir, line, "p_7@118", shown, &here, &held).map(str::to_string)
        };
        assert!(stale(SUNK, 273, "38156").is_some_and(|r| r.contains("i16 %51")));
        // A value the variable never held in its function is not the IR's.
        assert_eq!(stale(SUNK, 273, "38157"), None);
        // Nor a value the record cannot give (a 16-bit value zero-extended).
        let held_negative = ["-18".to_string()];
        let stale_negative =
            ir_stale_record_in_effect(SUNK, 273, "p_7@118", "-18", &here, &held_negative);
        assert_eq!(stale_negative, None);
        // No record is in effect at a line without an instruction.
        assert_eq!(stale(SUNK, 274, "38156"), None);
        // A record that can give -17 describes the value held at line 273:
        // a constant, or a whole register.
        for record in [
            "i64 -17, !335, !DIExpression()",
            "i64 %53, !335, !DIExpression()",
        ] {
            let described = SUNK.replace("i64 -14, !335, !DIExpression()", record);
            assert_ne!(described, SUNK);
            assert_eq!(stale(&described, 273, "38156"), None);
        }
    }

    /// csmith 226247's func_14 (inlined), cut down: block %60, whose one
    /// predecessor is %48, loads for line 179 before block %84 records
    /// p_16's value of line 178.
    const HOISTED: &str = "define internal void @func_1() !dbg !298 {\n\
        48:\n\
        \x20 %52 = xor i32 %51, %50, !dbg !350\n\
        \x20   #dbg_value(i32 %52, !493, !DIExpression(), !504)\n\
        \x20 br i1 %59, label %62, label %60, !dbg !521\n\
        \n\
        60:                                               ; preds = %48\n\
        \x20 %61 = load i64, ptr @g_37, align 16, !dbg !522\n\
        \x20 br label %84, !dbg !521\n\
        \n\
        62:                                               ; preds = %48\n\
        \x20 br label %84, !dbg !521\n\
        \n\
        84:                                               ; preds = %62, %60\n\
        \x20   #dbg_value(i32 -1078383790, !493, !DIExpression(), !504)\n\
        \x20 ret void, !dbg !522\n\
        }\n\
        !493 = !DILocalVariable(name: \"p_16\", arg: 2, scope: !488, file: !3, line: 164, type: !104)\n\
        !522 = !DILocation(line: 179, column: 166, scope: !488, inlinedAt: !503)\n";

    #[test]
    fn code_of_a_line_placed_before_an_assignment_sees_the_value_before_it() {
        let here = ["-1078383790".to_string()];
        let before = ["-15".to_string()];
        let found = |ir: &str, shown: &str| {
            ir_record_before_assignment(ir, 179, "p_16@164", shown, &here, &before)
                .map(str::to_string)
        };
        assert!(found(HOISTED, "-15").is_some_and(|r| r.contains("i32 %52, !493")));
        // A value the variable did not hold before the line is not it.
        assert_eq!(found(HOISTED, "-16"), None);
        // Without a later record of the value held there, the IR never
        // says the assignment happened.
        let never = HOISTED.replace("i32 -1078383790, !493", "i32 -7, !493");
        assert_ne!(never, HOISTED);
        assert_eq!(found(&never, "-15"), None);
        // A block with two predecessors ends the search.
        let joined = HOISTED.replace(
            "60:                                               ; preds = %48",
            "60:                                               ; preds = %48, %62",
        );
        assert_ne!(joined, HOISTED);
        assert_eq!(found(&joined, "-15"), None);
    }

    #[test]
    fn a_register_selected_from_two_constants_holds_one_of_them() {
        // csmith 227234, cut down: l_21's record is a select of 228 and 168.
        let selected = IR.replace(
            "%53 = and i64 %0, 7, !dbg !356",
            "%51 = select i1 %50, i32 228, i32 168, !dbg !356",
        );
        let selected = selected.replace(
            "!DIArgList(i16 0, i64 %53), !368, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_LLVM_convert, 64, DW_ATE_unsigned, DW_OP_LLVM_convert, 16, DW_ATE_unsigned, DW_OP_constu, 1, DW_OP_and, DW_OP_minus, DW_OP_plus_uconst, 7, DW_OP_stack_value)",
            "i32 %51, !368, !DIExpression()",
        );
        assert!(selected.contains("i32 %51, !368"));
        // The select sits in the block before the record's: defined earlier
        // in the function (SSA: its definition dominates the record), it is
        // known wherever the record is in effect.
        let record = ir_record_in_effect(&selected, 265, "p_6@148", "168");
        assert!(record.is_some_and(|r| r.contains("i32 %51, !368")));
        assert!(ir_record_in_effect(&selected, 265, "p_6@148", "228").is_some());
        // Neither constant is 7.
        assert_eq!(ir_record_in_effect(&selected, 265, "p_6@148", "7"), None);
    }

    #[test]
    fn a_record_of_a_boolean_register_gives_zero_or_one() {
        // csmith 228663, cut down: clang's record of `p_31`, the argument
        // `a != b` of the inlined `func_29`, is the un-negated compare
        // `a == b` (the negation went into the branches' targets), so gdb
        // shows 0 at line 158 where gcc -O0 holds 1.
        let boolean = IR.replace(
            "!DIArgList(i16 0, i64 %53), !368, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_LLVM_convert, 64, DW_ATE_unsigned, DW_OP_LLVM_convert, 16, DW_ATE_unsigned, DW_OP_constu, 1, DW_OP_and, DW_OP_minus, DW_OP_plus_uconst, 7, DW_OP_stack_value)",
            "i1 %62, !368, !DIExpression(DW_OP_LLVM_convert, 1, DW_ATE_unsigned, DW_OP_LLVM_convert, 64, DW_ATE_unsigned, DW_OP_stack_value)",
        );
        assert!(boolean.contains("i1 %62, !368"));
        let record = ir_record_in_effect(&boolean, 265, "p_6@148", "0");
        assert!(record.is_some_and(|r| r.contains("i1 %62, !368")));
        assert!(ir_record_in_effect(&boolean, 265, "p_6@148", "1").is_some());
        assert_eq!(ir_record_in_effect(&boolean, 265, "p_6@148", "2"), None);
        // A wider register is still any value.
        let wide = boolean.replace("i1 %62, !368", "i8 %62, !368");
        assert_eq!(ir_record_in_effect(&wide, 265, "p_6@148", "0"), None);
    }

    #[test]
    fn a_new_block_ends_the_record_in_effect() {
        let split = IR.replace("  store ptr null", "  br label %55\n55:\n  store ptr null");
        assert!(ir_record_in_effect(&split, 265, "p_6@148", "7").is_none());
    }
}
