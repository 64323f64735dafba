//! No circle among the top-level modules of the crates: module `a` naming anything of `b`
//! (`crate::b`, `$crate::b` in a macro, `super::b` from the crate root, an item `lib.rs`
//! re-exports from `b`, or an exported macro of `b`) and `b`, by any path, naming `a` is one.
//! Comments and string literals do not count; everything else does, tests included.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The tokens of a Rust file (comments dropped, literals whole); a file that does not tokenize
/// fails the test, named with the line and column.
fn tokenize(file: &Path) -> TokenStream {
    TokenStream::from_str(&fs::read_to_string(file).unwrap()).unwrap_or_else(|e| {
        let at = e.span().start();
        panic!("{}:{}:{}: not Rust tokens: {e}", file.display(), at.line, at.column + 1)
    })
}

/// The name an identifier stands for (`r#type`: `type`).
fn name(token: &TokenTree) -> Option<String> {
    let TokenTree::Ident(ident) = token else { return None };
    let text = ident.to_string();
    Some(text.strip_prefix("r#").map(str::to_string).unwrap_or(text))
}

fn is_name(token: Option<&TokenTree>, expected: &str) -> bool {
    token.and_then(name).is_some_and(|n| n == expected)
}

fn is_punct(token: Option<&TokenTree>, expected: char) -> bool {
    matches!(token, Some(TokenTree::Punct(p)) if p.as_char() == expected)
}

/// `::` at `tokens[i]`: proc-macro2 gives it as a `:` joined to the next `:`.
fn is_path_sep(tokens: &[TokenTree], i: usize) -> bool {
    matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Joint)
        && is_punct(tokens.get(i + 1), ':')
}

/// Every name in `tokens`, those of nested groups included.
fn all_names(tokens: TokenStream) -> Vec<String> {
    tokens
        .into_iter()
        .flat_map(|token| match token {
            TokenTree::Group(group) => all_names(group.stream()),
            other => name(&other).into_iter().collect(),
        })
        .collect()
}

/// Calls `visit` with the tokens of `stream` and of each group in it, at any depth, each with the
/// number of inline modules (`mod tests { ... }`) around them.
fn each_level(stream: TokenStream, inline_modules: usize, visit: &mut impl FnMut(&[TokenTree], usize)) {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    visit(&tokens, inline_modules);
    for (i, token) in tokens.iter().enumerate() {
        if let TokenTree::Group(group) = token {
            let opens_module = group.delimiter() == Delimiter::Brace && i >= 2 && is_name(tokens.get(i - 2), "mod");
            each_level(group.stream(), inline_modules + usize::from(opens_module), visit);
        }
    }
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// The module path of a file below `src` (`lib.rs`: the root, empty).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let mut parts: Vec<String> =
        file.strip_prefix(src).unwrap().iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib") {
        parts.push(stem.to_string());
    }
    parts
}

/// The graph of the top-level modules of the crate whose sources are in `src`: an edge from
/// each module to every other one it names.
fn module_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let sources: Vec<(Vec<String>, TokenStream)> = files.iter().map(|f| (module_path(src, f), tokenize(f))).collect();
    let top_level: BTreeSet<String> = sources.iter().filter_map(|(path, _)| path.first().cloned()).collect();
    // Names at the crate root that stand for a module's item: `lib.rs`'s `pub use m::{A, B}` and exported macros.
    let mut root_items: BTreeMap<String, String> = BTreeMap::new();
    for (path, tokens) in &sources {
        each_level(tokens.clone(), 0, &mut |level, _| {
            if path.is_empty() {
                root_items.extend(reexports(level, &top_level));
            }
            if let Some(module) = path.first() {
                root_items.extend(exported_macros(level).into_iter().map(|name| (name, module.clone())));
            }
        });
    }
    let mut graph: Graph = top_level.iter().map(|m| (m.clone(), BTreeSet::new())).collect();
    for (path, tokens) in &sources {
        let Some(from) = path.first() else { continue };
        for to in named_modules(path, tokens.clone(), &top_level, &root_items) {
            if &to != from {
                graph.get_mut(from).unwrap().insert(to);
            }
        }
    }
    graph
}

/// `pub use m::...;` at the root: each name brought in, with the module `m`.
fn reexports(tokens: &[TokenTree], top_level: &BTreeSet<String>) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for i in 0..tokens.len() {
        let pub_use = is_name(tokens.get(i), "pub") && is_name(tokens.get(i + 1), "use") && is_path_sep(tokens, i + 3);
        let Some(module) = tokens.get(i + 2).and_then(name).filter(|m| pub_use && top_level.contains(m)) else {
            continue;
        };
        let brought: TokenStream = tokens[i + 5..].iter().take_while(|t| !is_punct(Some(t), ';')).cloned().collect();
        found.extend(all_names(brought).into_iter().map(|name| (name, module.clone())));
    }
    found
}

/// The names of the `macro_rules!` macros with a `#[macro_export]` attribute.
fn exported_macros(tokens: &[TokenTree]) -> Vec<String> {
    let mut found = Vec::new();
    for (i, token) in tokens.iter().enumerate().skip(2) {
        if !(is_name(tokens.get(i - 2), "macro_rules") && is_punct(tokens.get(i - 1), '!')) {
            continue;
        }
        let mut attributes = tokens[..i - 2].rchunks_exact(2).map_while(|pair| match pair {
            [hash, TokenTree::Group(group)] if is_punct(Some(hash), '#') && group.delimiter() == Delimiter::Bracket => {
                Some(group.stream())
            }
            _ => None,
        });
        if attributes.any(|attribute| all_names(attribute).iter().any(|n| n == "macro_export")) {
            found.extend(name(token));
        }
    }
    found
}

/// Every top-level module that a path in the file of module `path` names.
fn named_modules(
    path: &[String],
    tokens: TokenStream,
    top_level: &BTreeSet<String>,
    root_items: &BTreeMap<String, String>,
) -> BTreeSet<String> {
    let resolve = |name: String| if top_level.contains(&name) { Some(name) } else { root_items.get(&name).cloned() };
    let mut named = BTreeSet::new();
    each_level(tokens, 0, &mut |tokens, inline_modules| {
        for i in 0..tokens.len() {
            // `$crate::` too: proc-macro2 gives `$crate` as `$` and `crate`.
            let at_root = if is_name(tokens.get(i), "crate") && is_path_sep(tokens, i + 1) {
                Some(i + 3)
            } else {
                // `super::` climbs out of the file's modules and the inline ones around it to reach the root.
                let climbs = (i..tokens.len())
                    .step_by(3)
                    .take_while(|&j| is_name(tokens.get(j), "super") && is_path_sep(tokens, j + 1))
                    .count();
                (climbs > 0 && climbs >= path.len() + inline_modules).then_some(i + 3 * climbs)
            };
            match at_root.and_then(|j| tokens.get(j)) {
                Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Brace => {
                    named.extend(group_heads(group.stream()).into_iter().filter_map(resolve))
                }
                Some(token) => named.extend(name(token).and_then(resolve)),
                None => {}
            }
        }
    });
    named
}

/// The first name of each path in a `{a::b, c, d::{e, f}}` group.
fn group_heads(group: TokenStream) -> Vec<String> {
    let tokens: Vec<TokenTree> = group.into_iter().collect();
    tokens.split(|t| is_punct(Some(t), ',')).filter_map(|path| path.first().and_then(name)).collect()
}

/// The circles of `graph`: each set of two or more modules that all reach one another.
fn circles(graph: &Graph) -> Vec<BTreeSet<String>> {
    let reach = |start: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start];
        while let Some(module) = stack.pop() {
            for next in &graph[module] {
                if seen.insert(next.clone()) {
                    stack.push(next);
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> = graph.keys().map(|m| (m, reach(m))).collect();
    let mut found: Vec<BTreeSet<String>> = Vec::new();
    for (module, reached) in &reaches {
        let circle: BTreeSet<String> =
            reached.iter().filter(|other| reaches[other].contains(*module)).cloned().collect();
        if circle.len() > 1 && !found.contains(&circle) {
            found.push(circle);
        }
    }
    found
}

fn crate_src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name).join("src")
}

#[test]
fn the_core_has_no_module_circle() {
    let graph = module_graph(&crate_src("paperlens-core"));
    assert!(graph["request_type"].contains("validate"), "the finder sees the macro's `$crate::` paths");
    assert!(graph["operation"].contains("paper_schema"));
    assert_eq!(circles(&graph), Vec::<BTreeSet<String>>::new(), "{graph:#?}");
}

#[test]
fn the_sandbox_has_no_module_circle() {
    let graph = module_graph(&crate_src("paperlens-sandbox"));
    assert!(graph["server"].contains("service"));
    assert_eq!(circles(&graph), Vec::<BTreeSet<String>>::new(), "{graph:#?}");
}

#[test]
fn a_made_up_circle_is_found_by_every_kind_of_path() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let files = [
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\npub mod d;\npub mod e;\npub mod f;\npub use e::Thing;\n"),
        // a -> b through a group, a -> e through a root re-export.
        ("a.rs", "use crate::{d as _, b::{self, X}};\nfn f() -> crate::Thing { b::X }\n"),
        // b -> c only inside a macro's expansion.
        ("b.rs", "pub struct X;\nmacro_rules! m { () => { $crate::c::f() }; }\n"),
        // c -> a from two inline modules down: super::super::super is the root.
        ("c/mod.rs", "mod inner { mod deeper { use super::super::super::a; } }\n"),
        // d names a only in comments (a doc comment too), strings and chars, and climbs to itself: no edge; after all
        // of them, d -> e from the root.
        (
            "d.rs",
            r##"// crate::a
/* crate::a /* nested */ crate::a */
/// crate::a
const S: &str = "crate::a \" crate::a";
const R: &str = r#"crate::a "# ;
const B: &[u8] = br#"crate::a"#;
const N: &CStr = c"crate::a";
const C: char = '"';
const Q: [u8; 2] = [b'\'', b'\x7f'];
fn g<'a>(x: &'a str) {}
mod tests { use super::*; }
use super::e as _;
"##,
        ),
        // e -> d through an exported macro of d named at the root.
        ("e.rs", "pub struct Thing;\nfn h() { crate::shout!(); }\n"),
        ("d/more.rs", "#[macro_export]\nmacro_rules! shout { () => {}; }\n"),
        // f -> a from a file one folder down.
        ("f/inner.rs", "use super::super::a as _;\n"),
    ];
    for (name, text) in files {
        let path = src.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    let graph = module_graph(src);
    let edges = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(graph["a"], edges(&["b", "d", "e"]));
    assert_eq!(graph["b"], edges(&["c"]));
    assert_eq!(graph["c"], edges(&["a"]));
    assert_eq!(graph["d"], edges(&["e"]));
    assert_eq!(graph["e"], edges(&["d"]));
    assert_eq!(graph["f"], edges(&["a"]));
    assert_eq!(circles(&graph), vec![edges(&["a", "b", "c"]), edges(&["d", "e"])]);
}

#[test]
#[should_panic(expected = "broken.rs:2:17: not Rust tokens")]
fn a_file_that_does_not_tokenize_fails_the_test_named() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("lib.rs"), "pub mod broken;\n").unwrap();
    fs::write(dir.path().join("broken.rs"), "fn f() {}\nconst S: &str = \"never closed;\n").unwrap();
    module_graph(dir.path());
}
