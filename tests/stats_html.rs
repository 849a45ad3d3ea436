//! `dwarfsmith stats --html OUT.html A --compare B` opened in headless
//! Chromium: the page's script runs to its end without an error, and every
//! coloured segment of every variable map (both builds: dwarfsmith's and
//! llc-19's objects of fixtures/ll/inlining.O2.ll) is one location-list
//! entry of that variable as llvm-dwarfdump-19 prints it, clipped to the
//! function, with the kind its expression says — and every such entry is
//! drawn.

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// (build, function name, variable name, low, high, kind)
type Segment = (String, String, String, u64, u64, String);

#[test]
fn page_renders_in_chromium_and_draws_the_location_lists() {
    let dir = tempfile::tempdir().unwrap();
    let input = support::fixture("ll/inlining.O2.ll");
    let (a, b) = (dir.path().join("ds.o"), dir.path().join("llc.o"));
    support::stdout_of(
        Command::new(env!("CARGO_BIN_EXE_dwarfsmith"))
            .arg("compile")
            .arg(&input)
            .arg("-o")
            .arg(&a),
    );
    support::stdout_of(
        Command::new("llc-19")
            .args(["-O2", "-filetype=obj"])
            .arg(&input)
            .arg("-o")
            .arg(&b),
    );
    let page = dir.path().join("page.html");
    support::stdout_of(
        Command::new(env!("CARGO_BIN_EXE_dwarfsmith"))
            .args(["stats", "--html"])
            .arg(&page)
            .arg(&a)
            .arg("--compare")
            .arg(&b),
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("http://") && !html.contains("https://") && !html.contains("src="));
    let dom = support::stdout_of(
        Command::new("timeout")
            .args([
                "120",
                "chromium",
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--dump-dom",
            ])
            .arg(format!("file://{}", page.display())),
    );
    let body = dom
        .split("<body")
        .nth(1)
        .unwrap()
        .split('>')
        .next()
        .unwrap();
    assert!(
        body.contains("data-rendered=\"ok\""),
        "script did not finish: {body}"
    );
    assert!(!body.contains("data-error"), "script error: {body}");

    let drawn = drawn_segments(&dom);
    let mut expected = location_lists("A", &a);
    expected.extend(location_lists("B", &b));
    assert!(drawn.len() > 20, "{drawn:?}");
    let missing: Vec<_> = expected.difference(&drawn).collect();
    let extra: Vec<_> = drawn.difference(&expected).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "not drawn: {missing:#?}\ndrawn but not in the location lists: {extra:#?}"
    );
}

fn attribute(tag: &str, name: &str) -> String {
    let key = format!("{name}=\"");
    let from = tag
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {tag}"))
        + key.len();
    tag[from..].split('"').next().unwrap().to_string()
}

fn hex(text: &str) -> u64 {
    u64::from_str_radix(text.trim_start_matches("0x"), 16).unwrap()
}

/// The coloured segments of the DOM, with the build and function they are in.
fn drawn_segments(dom: &str) -> BTreeSet<Segment> {
    let mut segments = BTreeSet::new();
    let (mut build, mut function) = (String::new(), String::new());
    for tag in dom.split('<').map(|t| t.split('>').next().unwrap()) {
        if tag.starts_with("div class=\"map\"") {
            function = attribute(tag, "data-function");
            function = function.split(':').next().unwrap().to_string();
        } else if tag.starts_with("div class=\"build\"") {
            build = attribute(tag, "data-build");
        } else if tag.starts_with("div class=\"seg ") {
            let kind = attribute(tag, "data-kind");
            if kind != "none" {
                segments.insert((
                    build.clone(),
                    function.clone(),
                    attribute(tag, "data-variable"),
                    hex(&attribute(tag, "data-low")),
                    hex(&attribute(tag, "data-high")),
                    kind,
                ));
            }
        }
    }
    segments
}

/// Every location-list entry of every variable of every subprogram (not
/// inside an inlined instance) as llvm-dwarfdump-19 prints it, clipped to
/// the subprogram's range.
fn location_lists(build: &str, object: &Path) -> BTreeSet<Segment> {
    let dump = support::stdout_of(
        Command::new("llvm-dwarfdump-19")
            .arg("--debug-info")
            .arg(object),
    );
    let mut segments = BTreeSet::new();
    // (depth, tag, name, low, high) of the DIEs enclosing the current one.
    let mut stack: Vec<(usize, String, String, u64, u64)> = Vec::new();
    let mut current: Option<(usize, String)> = None;
    let mut attributes: Vec<String> = Vec::new();
    let mut finish = |stack: &mut Vec<(usize, String, String, u64, u64)>,
                      current: &Option<(usize, String)>,
                      attributes: &[String]| {
        let Some((depth, tag)) = current else { return };
        let text = attributes.join("\n");
        let name = text
            .split("DW_AT_name\t(\"")
            .nth(1)
            .map(|rest| rest.split('"').next().unwrap().to_string())
            .unwrap_or_default();
        let low = text
            .split("DW_AT_low_pc\t(")
            .nth(1)
            .map_or(0, |rest| hex(rest.split(')').next().unwrap()));
        let high = text
            .split("DW_AT_high_pc\t(")
            .nth(1)
            .map_or(0, |rest| hex(rest.split(')').next().unwrap()));
        stack.retain(|(d, ..)| d < depth);
        let in_inlined = stack
            .iter()
            .any(|(_, t, ..)| t == "DW_TAG_inlined_subroutine");
        let subprogram = stack
            .iter()
            .rev()
            .find(|(_, t, ..)| t == "DW_TAG_subprogram");
        if (tag == "DW_TAG_variable" || tag == "DW_TAG_formal_parameter") && !in_inlined {
            if let Some((_, _, function, f_low, f_high)) = subprogram {
                let mut entries: Vec<(u64, u64, String)> = Vec::new();
                for line in text.lines().filter(|l| l.trim_start().starts_with("[0x")) {
                    let (range, expression) = line.trim().split_once("): ").unwrap();
                    let (l, h) = range.trim_start_matches('[').split_once(", ").unwrap();
                    entries.push((hex(l), hex(h), expression.to_string()));
                }
                // A single expression: valid over the parent scope.
                if let Some(rest) = text.split("DW_AT_location\t(DW_OP").nth(1) {
                    let (_, _, _, p_low, p_high) = stack.last().unwrap();
                    let expression = format!("DW_OP{}", rest.lines().next().unwrap());
                    entries.push((*p_low, *p_high, expression));
                }
                for (l, h, expression) in entries {
                    let (l, h) = (l.max(*f_low), h.min(*f_high));
                    if l < h {
                        segments.insert((
                            build.to_string(),
                            function.clone(),
                            name.clone(),
                            l,
                            h,
                            kind(&expression).to_string(),
                        ));
                    }
                }
            }
        }
        stack.push((*depth, tag.clone(), name, low, high));
    };
    for line in dump.lines() {
        let header = line
            .split_once(": ")
            .filter(|(offset, _)| offset.starts_with("0x") && !offset.contains(' '));
        match header {
            Some((_, rest)) if rest.trim_start().starts_with("DW_TAG") || rest.trim() == "NULL" => {
                finish(&mut stack, &current, &attributes);
                let depth = rest.len() - rest.trim_start().len();
                current = Some((depth, rest.trim().to_string()));
                attributes.clear();
            }
            _ => attributes.push(line.to_string()),
        }
    }
    finish(&mut stack, &current, &attributes);
    segments
}

/// The page's kind of an expression as llvm-dwarfdump prints it.
fn kind(expression: &str) -> &'static str {
    if expression.contains("DW_OP_entry_value") {
        "entry-value"
    } else if expression.contains("DW_OP_stack_value")
        || expression.contains("DW_OP_implicit_value")
    {
        "computed"
    } else if expression.starts_with("DW_OP_reg") {
        "register"
    } else {
        "memory"
    }
}
