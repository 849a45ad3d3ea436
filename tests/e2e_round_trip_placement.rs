//! The placement code generation gives functions and globals reads back
//! from the object: a module with COMDAT groups (functions and globals),
//! `section` on a function and a global, aliases (at the first byte and at
//! an offset), weak and hidden/protected symbols and a float constant is
//! compiled to a model, written and read back: the round trip holds, and
//! the model read back has each group, section name, binding and alias.

use dwarfsmith::{compile_to_model, write_options, CompileOptions, DebuggerTune, OptLevel};
use dwarfsmith_emit::model::{Alias, SymbolBinding, Visibility};
use dwarfsmith_emit::read::read;
use dwarfsmith_emit::verify::round_trip;
use dwarfsmith_emit::write::write;

const MODULE: &str = r#"$f = comdat any
$g = comdat any
@g = linkonce_odr global i32 40, comdat, align 4
@named = protected global [2 x i32] [i32 1, i32 2], section ".mydata"
@second = alias i32, getelementptr (i8, ptr @named, i64 4)
@other = hidden alias i32, ptr @named
define linkonce_odr i32 @f() comdat {
  %v = load i32, ptr @g
  ret i32 %v
}
define hidden i32 @hot(i32 %x) section ".text.hot" {
  %r = add i32 %x, 1
  ret i32 %r
}
@hot_alias = alias i32 (i32), ptr @hot
define double @scale(double %x) {
  %r = fmul double %x, 2.5
  ret double %r
}
"#;

/// A function's name, COMDAT group, section name, binding and aliases.
type Placement<'a> = (
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
    SymbolBinding,
    Vec<Alias>,
);

#[test]
fn placement_of_compiled_code_reads_back() {
    let options = CompileOptions {
        opt_level: OptLevel::O2,
        debug_info: false,
        debugger_tune: DebuggerTune::Gdb,
    };
    let model = compile_to_model(MODULE, "placement.ll", &options).unwrap();
    round_trip(&model, &write_options(&options)).unwrap_or_else(|e| panic!("{e}"));
    let got = read(&write(&model, &write_options(&options)).unwrap()).unwrap();
    let functions: Vec<Placement> = got
        .functions
        .iter()
        .map(|f| {
            (
                f.name.as_str(),
                f.comdat.as_deref(),
                f.section_name.as_deref(),
                f.binding,
                f.aliases.clone(),
            )
        })
        .collect();
    let hidden = SymbolBinding {
        weak: false,
        visibility: Visibility::Hidden,
    };
    assert_eq!(
        functions,
        [
            ("scale", None, None, SymbolBinding::default(), vec![]),
            (
                "f",
                Some("f"),
                None,
                SymbolBinding {
                    weak: true,
                    visibility: Visibility::Default
                },
                vec![]
            ),
            (
                "hot",
                None,
                Some(".text.hot"),
                hidden,
                vec![Alias {
                    name: "hot_alias".into(),
                    global: true,
                    binding: SymbolBinding::default(),
                    offset: 0
                }]
            ),
        ]
    );
    assert_eq!(got.functions[0].literals, [2.5f64.to_le_bytes().to_vec()]);
    let g = got.data.iter().find(|d| d.name == "g").unwrap();
    assert_eq!((g.comdat.as_deref(), g.binding.weak), (Some("g"), true));
    let named = got.data.iter().find(|d| d.name == "named").unwrap();
    assert_eq!(named.section_name.as_deref(), Some(".mydata"));
    assert_eq!(named.binding.visibility, Visibility::Protected);
    assert_eq!(
        named.aliases,
        [
            Alias {
                name: "other".into(),
                global: true,
                binding: hidden,
                offset: 0
            },
            Alias {
                name: "second".into(),
                global: true,
                binding: SymbolBinding::default(),
                offset: 4
            },
        ]
    );
}
