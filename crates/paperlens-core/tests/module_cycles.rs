//! No circle among the top-level modules of the crates: module `a` naming anything of `b`
//! (`crate::b`, `$crate::b` in a macro, `super::b` from the crate root, an item `lib.rs`
//! re-exports from `b`, or an exported macro of `b`) and `b`, by any path, naming `a` is one.
//! Comments and string literals do not count; everything else does, tests included.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

#[derive(Debug, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Punct(char),
}

/// The tokens of Rust source that paths are made of; comments, strings, chars and lifetimes dropped.
fn tokens(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            loop {
                if i >= chars.len() {
                    break;
                } else if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i = after_string(&chars, i + 1, 0);
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{1F600}') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 3; // past the quote, the backslash and the escaped character
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while at(i).is_alphanumeric() || at(i) == '_' {
                    i += 1;
                }
            }
        } else if c.is_alphanumeric() || c == '_' || (c == '$' && (at(i + 1).is_alphabetic())) {
            let start = i;
            i += 1;
            while at(i).is_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let prefix = matches!(word.as_str(), "r" | "b" | "br" | "c" | "cr");
            if word == "b" && at(i) == '\'' {
                // A byte literal: read on as a char literal.
            } else if prefix && (at(i) == '"' || (at(i) == '#' && word.ends_with('r'))) {
                let hashes = (i..).take_while(|&j| at(j) == '#').count();
                if at(i + hashes) == '"' {
                    i = after_string(&chars, i + hashes + 1, hashes);
                } else {
                    i += hashes; // r#ident, a raw identifier: the name follows
                }
            } else {
                out.push(Token::Ident(word));
            }
        } else if c == ':' && at(i + 1) == ':' {
            out.push(Token::PathSep);
            i += 2;
        } else {
            out.push(Token::Punct(c));
            i += 1;
        }
    }
    out
}

/// Where a string literal opened just before `i` ends, closed by `"` and `hashes` hashes.
fn after_string(chars: &[char], mut i: usize, hashes: usize) -> usize {
    while i < chars.len() {
        if hashes == 0 && chars[i] == '\\' {
            i += 2;
        } else if chars[i] == '"' && chars[i + 1..].iter().take(hashes).filter(|&&c| c == '#').count() == hashes {
            return i + 1 + hashes;
        } else {
            i += 1;
        }
    }
    i
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
    let sources: Vec<(Vec<String>, Vec<Token>)> =
        files.iter().map(|f| (module_path(src, f), tokens(&fs::read_to_string(f).unwrap()))).collect();
    let top_level: BTreeSet<String> = sources.iter().filter_map(|(path, _)| path.first().cloned()).collect();
    // Names at the crate root that stand for a module's item: `lib.rs`'s `pub use m::{A, B}` and exported macros.
    let mut root_items: BTreeMap<String, String> = BTreeMap::new();
    for (path, tokens) in &sources {
        if path.is_empty() {
            root_items.extend(reexports(tokens, &top_level));
        }
        for (i, token) in tokens.iter().enumerate() {
            if *token == Token::Ident("macro_export".into()) {
                let name = tokens[i..].windows(3).find_map(|w| match w {
                    [Token::Ident(m), Token::Punct('!'), Token::Ident(name)] if m == "macro_rules" => Some(name),
                    _ => None,
                });
                if let (Some(name), Some(module)) = (name, path.first()) {
                    root_items.insert(name.clone(), module.clone());
                }
            }
        }
    }
    let mut graph: Graph = top_level.iter().map(|m| (m.clone(), BTreeSet::new())).collect();
    for (path, tokens) in &sources {
        let Some(from) = path.first() else { continue };
        for to in named_modules(path, tokens, &top_level, &root_items) {
            if &to != from {
                graph.get_mut(from).unwrap().insert(to);
            }
        }
    }
    graph
}

/// `pub use m::...;` at the root: each name brought in, with the module `m`.
fn reexports(tokens: &[Token], top_level: &BTreeSet<String>) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (i, window) in tokens.windows(4).enumerate() {
        if let [Token::Ident(p), Token::Ident(u), Token::Ident(module), Token::PathSep] = window {
            if p == "pub" && u == "use" && top_level.contains(module) {
                for token in tokens[i + 4..].iter().take_while(|t| **t != Token::Punct(';')) {
                    if let Token::Ident(name) = token {
                        found.push((name.clone(), module.clone()));
                    }
                }
            }
        }
    }
    found
}

/// Every top-level module that a path in the file of module `path` names.
fn named_modules(
    path: &[String],
    tokens: &[Token],
    top_level: &BTreeSet<String>,
    root_items: &BTreeMap<String, String>,
) -> BTreeSet<String> {
    let resolve = |name: &str| {
        if top_level.contains(name) {
            Some(name.to_string())
        } else {
            root_items.get(name).cloned()
        }
    };
    let mut named = BTreeSet::new();
    // Inline modules (`mod tests { ... }`) open at a brace depth; `super::` climbs out of them first.
    let mut inline: Vec<usize> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Punct('{') => {
                if i >= 2 && matches!(&tokens[i - 2], Token::Ident(m) if m == "mod") {
                    inline.push(depth);
                }
                depth += 1;
            }
            Token::Punct('}') => {
                depth -= 1;
                if inline.last() == Some(&depth) {
                    inline.pop();
                }
            }
            Token::Ident(word) if tokens.get(i + 1) == Some(&Token::PathSep) => {
                let at_root = match word.as_str() {
                    "crate" | "$crate" => Some(i + 2),
                    "super" => {
                        let climbs = tokens[i..].chunks(2).take_while(|c| c[0] == Token::Ident("super".into())).count();
                        (climbs >= path.len() + inline.len()).then_some(i + 2 * climbs)
                    }
                    _ => None,
                };
                match (at_root, at_root.and_then(|j| tokens.get(j))) {
                    (_, Some(Token::Ident(name))) => named.extend(resolve(name)),
                    (Some(j), Some(Token::Punct('{'))) => named.extend(group_heads(&tokens[j..]).filter_map(resolve)),
                    _ => {}
                }
            }
            _ => {}
        }
        i += 1;
    }
    named
}

/// The first name of each path in a `{a::b, c, d::{e, f}}` group.
fn group_heads(tokens: &[Token]) -> impl Iterator<Item = &str> {
    let mut depth = 0;
    let mut heads = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::Punct('{') => depth += 1,
            Token::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            Token::Ident(name) if depth == 1 && matches!(&tokens[i - 1], Token::Punct('{' | ',')) => {
                heads.push(name.as_str())
            }
            _ => {}
        }
    }
    heads.into_iter()
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
        // d names a only in comments, strings and chars, and climbs to itself: no edge; after all
        // of them, d -> e from the root.
        (
            "d.rs",
            r##"// crate::a
/* crate::a /* nested */ crate::a */
const S: &str = "crate::a \" crate::a";
const R: &str = r#"crate::a "# ;
const B: &[u8] = br#"crate::a"#;
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
