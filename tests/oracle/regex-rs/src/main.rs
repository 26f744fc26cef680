// SPDX-License-Identifier: GPL-2.0-or-later
//
// The runtime-rs side of tests/regex-oracle.test: does kata-guard read an
// enable_annotations list as runtime-rs does?  kata-types'
// SecurityInfo::is_annotation_enabled (src/libs/kata-types/src/config/
// hypervisor/mod.rs) compiles the whole list as one RegexSet and asks
// is_match of the name without io.katacontainers.config.hypervisor.: a
// list one of whose patterns does not compile enables nothing.
//
//   regex-rs < LINES
//
// LINES are tests/oracle/regex-view's, "VERDICT NAME PATTERN..." (each
// field hex after an 'x').  Where the guard told (1 or 0), the list must
// compile and the verdict be RegexSet::is_match's; the name and patterns
// must be strings runtime-rs can hold (UTF-8).  A difference is printed
// and the exit status is 1.
use regex::RegexSet;
use std::io::{self, BufRead};
use std::process::exit;

fn unfield(s: &str) -> Option<Vec<u8>> {
    let h = s.strip_prefix('x')?.as_bytes();
    if h.len() % 2 != 0 {
        return None;
    }
    h.chunks(2)
        .map(|c| u8::from_str_radix(std::str::from_utf8(c).ok()?, 16).ok())
        .collect()
}

fn main() {
    let (mut lines, mut told, mut bad) = (0usize, 0usize, 0usize);
    for l in io::stdin().lock().lines() {
        let l = l.unwrap_or_else(|e| {
            println!("reading regex-view's lines: {}", e);
            exit(1)
        });
        lines += 1;
        let f: Vec<&str> = l.split(' ').collect();
        let fields: Option<Vec<Vec<u8>>> = f.iter().skip(1).map(|s| unfield(s)).collect();
        let fields = match fields {
            Some(v) if f.len() >= 3 => v,
            _ => {
                println!("unreadable regex-view line {}: {:?}", lines, l);
                exit(1)
            }
        };
        let v = f[0];
        if v == "-" || v == "t" {
            continue;
        }
        if v != "0" && v != "1" {
            println!("unreadable regex-view verdict {:?} on line {}", v, lines);
            exit(1)
        }
        told += 1;
        let name = String::from_utf8_lossy(&fields[0]).into_owned();
        let pats: Vec<String> = fields[1..].iter().map(|p| String::from_utf8_lossy(p).into_owned()).collect();
        let mut why = String::new();
        if fields.iter().any(|b| std::str::from_utf8(b).is_err()) {
            why = "; a name or pattern that is not UTF-8 (runtime-rs's strings cannot hold it)".into();
        }
        let rs = match RegexSet::new(&pats) {
            Ok(set) => set.is_match(&name),
            Err(e) => {
                why = format!("; the RegexSet does not compile: {}", e.to_string().replace('\n', " "));
                false
            }
        };
        if !why.is_empty() || rs != (v == "1") {
            bad += 1;
            if bad <= 20 {
                println!(
                    "disagreement: name {:?}, enable_annotations {:?}: the guard says {}, Rust's regex {}{}",
                    name,
                    pats,
                    if v == "1" { "enabled" } else { "off" },
                    if rs { "enabled" } else { "off" },
                    why
                );
            }
        }
    }
    println!("oracle-regex rs: {} cases, {} told by the guard; {} disagreements", lines, told, bad);
    exit(if bad > 0 { 1 } else { 0 })
}
