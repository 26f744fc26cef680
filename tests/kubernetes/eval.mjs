// SPDX-License-Identifier: GPL-2.0-or-later
// Offline evaluation of packaging/kubernetes (tests/kubernetes.test):
//   node eval.mjs schema FILE...       every document against the API schemas
//   node eval.mjs nfd RULES CASES      the NodeFeatureRule on sample nodes
//   node eval.mjs vap POLICY CASES     the admission policies on sample requests
// Each prints one "PASS<TAB>what" or "FAIL<TAB>what<TAB>why" line per row.
// Mutants (CASES' "mutants"): each edit of the shipped file must make at
// least one case fail, or the cases do not guard that line.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import yaml from "js-yaml";
import Ajv from "ajv";
import { evaluate } from "@marcbachmann/cel-js";

const here = dirname(fileURLToPath(import.meta.url));
const say = (ok, what, why) => console.log(ok ? `PASS\t${what}` : `FAIL\t${what}\t${why}`);
const docs = (text) => yaml.loadAll(text).filter((d) => d != null);

// ---- schemas ----------------------------------------------------------------
// A CRD's structural schema as the API server applies it with strict field
// validation (kubectl's default): unknown fields are errors, except under
// x-kubernetes-preserve-unknown-fields.
function strict(s) {
  if (Array.isArray(s)) return s.map(strict);
  if (s === null || typeof s !== "object") return s;
  const o = {};
  for (const [k, v] of Object.entries(s)) o[k] = strict(v);
  if (o.properties && o.additionalProperties === undefined && !o["x-kubernetes-preserve-unknown-fields"])
    o.additionalProperties = false;
  return o;
}

async function schema(files) {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const nfd = JSON.parse(readFileSync(join(here, "nfd-crd-schemas.json"), "utf8")).schemas;
  const kubelet = JSON.parse(readFileSync(join(here, "kubelet-config-schema.json"), "utf8"));
  const { validate: taint } = await import("kubernetes-models/_schemas/IoK8sApiCoreV1Taint");
  for (const file of files) {
    for (const d of docs(readFileSync(file, "utf8"))) {
      const what = `${file.split("/").pop()}: ${d.apiVersion} ${d.kind} ${d.metadata?.name ?? ""}`;
      try {
        const [group, version] = d.apiVersion.includes("/") ? d.apiVersion.split("/") : ["", d.apiVersion];
        let errs = null;
        if (group === "nfd.k8s-sigs.io") {
          const s = nfd[`${d.apiVersion}/${d.kind}`];
          if (!s) throw new Error("no NFD schema for this kind");
          const v = ajv.compile(strict(s));
          if (!v(d)) errs = v.errors;
        } else if (group === "kubelet.config.k8s.io") {
          const v = ajv.compile(kubelet);
          if (!v(d)) errs = v.errors;
          for (const t of d.registerWithTaints ?? []) if (!taint(t)) errs = (errs ?? []).concat(taint.errors);
        } else {
          const path = group === "" ? `kubernetes-models/${version}/${d.kind}` : `kubernetes-models/${group}/${version}/${d.kind}`;
          const mod = await import(path);
          new mod[d.kind](d).validate();
        }
        say(errs === null, what, JSON.stringify(errs));
      } catch (e) {
        say(false, what, e.message.split("\n")[0]);
      }
    }
  }
}

// ---- Node Feature Discovery -------------------------------------------------
// NFD's rule matching, after node-feature-discovery (v0.20):
// source/local/local.go parseFeatureFile (expiry), pkg/apis/nfd/nodefeaturerule
// expression.go evaluateMatchExpression and rule.go Execute /
// evaluateFeatureMatcher, pkg/nfd-master/nfd-master.go processNodeFeatureRule
// (rule.matched back-references) and setTaints (the taints annotation).
function parseFeatureFile(text, now) {
  const labels = {};
  let expiry = now; // NFD: a file without the directive never expires
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    if (line.startsWith("#")) {
      const m = /^# \+expiry-time=(.*)$/.exec(line);
      if (m) {
        const t = Date.parse(m[1].trim());
        if (!Number.isNaN(t)) expiry = t;
      }
      continue;
    }
    if (expiry < now) continue;
    const i = line.indexOf("=");
    if (i < 0) labels[line] = "true";
    else labels[line.slice(0, i)] = line.slice(i + 1);
  }
  return labels;
}

function matchExpression(m, valid, value) {
  const v = m.value ?? [];
  switch (m.op) {
    case "Any": return true;
    case "Exists": return valid;
    case "DoesNotExist": return !valid;
  }
  if (!valid) return false;
  switch (m.op) {
    case "In": if (!v.length) throw new Error("In needs values"); return v.includes(value);
    case "NotIn": if (!v.length) throw new Error("NotIn needs values"); return !v.includes(value);
    case "InRegexp": return v.some((re) => new RegExp(re).test(value)); // Go RE2, unanchored, as JS here
    case "IsTrue": return value === "true";
    case "IsFalse": return value === "false";
    case "Gt": case "Lt": {
      const l = parseInt(value, 10), r = parseInt(v[0], 10);
      if (Number.isNaN(l)) throw new Error(`not a number ${value}`);
      return m.op === "Gt" ? l > r : l < r;
    }
    default: throw new Error(`op ${m.op} is not modelled here`);
  }
}

function matchFeatures(terms, features) {
  for (const term of terms) {
    const f = features[term.feature.toLowerCase()];
    if (f === undefined) return false; // "feature not available"
    if (term.matchName) throw new Error("matchName is not modelled here");
    for (const [key, m] of Object.entries(term.matchExpressions ?? {}))
      if (!matchExpression(m, Object.hasOwn(f, key), f[key])) return false;
  }
  return true;
}

function runRules(ruleDocs, features) {
  const out = { labels: {}, taints: [] };
  ruleDocs.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  for (const d of ruleDocs)
    for (const r of d.spec.rules) {
      let match = true;
      if (r.matchAny?.length) match = r.matchAny.some((e) => matchFeatures(e.matchFeatures, features));
      if (match && r.matchFeatures?.length) match = matchFeatures(r.matchFeatures, features);
      if (!match) continue;
      Object.assign(out.labels, r.labels ?? {});
      out.taints.push(...(r.taints ?? []));
      features["rule.matched"] = Object.assign(features["rule.matched"] ?? {}, r.labels ?? {}, r.vars ?? {});
    }
  return out;
}

const taintId = (t) => `${t.key}=${t.value ?? ""}:${t.effect}`;

// One pass of nfd-master over a node: its taints and the taints annotation.
function masterPass(ruleDocs, node, fileText, localSource, now) {
  const features = {};
  if (localSource) {
    const l = fileText === null ? {} : parseFeatureFile(fileText, now);
    features["local.label"] = l;
  }
  const out = runRules(structuredClone(ruleDocs), features);
  const owned = node.owned;
  let taints = node.taints.filter((t) => !owned.includes(taintId(t)) || out.taints.some((n) => taintId(n) === taintId(t)));
  for (const t of out.taints) if (!taints.some((x) => taintId(x) === taintId(t))) taints.push({ value: "", ...t });
  const ownedNow = [...new Set([...(node.skipRemoval ? owned : []), ...out.taints.map(taintId)])];
  return { labels: out.labels, taints, owned: ownedNow };
}

function nodeCases(ruleDocs, cases, now, report) {
  const results = [];
  for (const c of cases) {
    let node = { taints: c.kubeletTaint ? [{ key: "kata-guard.io/unverified", value: "", effect: "NoSchedule" }] : [], owned: [] };
    let last;
    for (const step of c.passes) {
      const text = step.file === null ? null : step.file
        .replaceAll("@FUTURE", new Date(now + 600e3).toISOString().replace(/\.\d+Z$/, "Z"))
        .replaceAll("@PAST", new Date(now - 60e3).toISOString().replace(/\.\d+Z$/, "Z"));
      last = masterPass(ruleDocs, node, text, step.localSource ?? true, now);
      node = { taints: last.taints, owned: last.owned };
    }
    const ready = last.labels["kata-guard.io/ready"] === "true";
    const tainted = last.taints.some((t) => t.key === "kata-guard.io/unverified" && t.effect === "NoSchedule");
    const ok = ready === c.expect.ready && tainted === c.expect.tainted;
    results.push(ok);
    if (report) say(ok, `nfd: ${c.name}`, `ready=${ready} tainted=${tainted}`);
  }
  return results;
}

// ---- admission ---------------------------------------------------------------
function cel(expr, ctx) {
  return evaluate(expr, ctx);
}

function selects(sel, labels) {
  if (!sel) return true;
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels?.[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.hasOwn(labels ?? {}, e.key);
    if (e.operator === "In" && !(has && e.values.includes(labels[e.key]))) return false;
    if (e.operator === "NotIn" && has && e.values.includes(labels[e.key])) return false;
    if (e.operator === "Exists" && !has) return false;
    if (e.operator === "DoesNotExist" && has) return false;
  }
  return true;
}

function ruleMatches(rules, req) {
  return rules.some((r) =>
    r.apiGroups.some((g) => g === "*" || g === req.group) &&
    r.operations.some((o) => o === "*" || o === req.operation) &&
    r.resources.some((x) => x === "*" || x === req.resource));
}

// The policies that deny REQ, with their messages.  Admission of a
// ValidatingAdmissionPolicy: matchConstraints, the binding's matchResources,
// matchConditions (all true), then each validation (false: denied).
function admit(objs, req) {
  const policies = Object.fromEntries(objs.filter((d) => d.kind === "ValidatingAdmissionPolicy").map((p) => [p.metadata.name, p]));
  const denials = [];
  for (const b of objs.filter((d) => d.kind === "ValidatingAdmissionPolicyBinding")) {
    const p = policies[b.spec.policyName];
    if (!p) throw new Error(`binding ${b.metadata.name} names no policy`);
    if (!ruleMatches(p.spec.matchConstraints.resourceRules, req)) continue;
    const nsLabels = req.namespaceLabels ?? {};
    if (req.namespace && !selects(p.spec.matchConstraints.namespaceSelector, nsLabels)) continue;
    if (req.namespace && !selects(b.spec.matchResources?.namespaceSelector, nsLabels)) continue;
    const ctx = {
      object: req.object, oldObject: req.oldObject ?? null,
      request: { operation: req.operation, namespace: req.namespace ?? "", userInfo: req.userInfo,
                 resource: { group: req.group, resource: req.resource } },
      variables: {},
    };
    for (const v of p.spec.variables ?? []) ctx.variables[v.name] = cel(v.expression, ctx);
    if (!(p.spec.matchConditions ?? []).every((m) => cel(m.expression, ctx) === true)) continue;
    for (const v of p.spec.validations) if (cel(v.expression, ctx) !== true) denials.push(`${p.metadata.name}: ${v.message}`);
  }
  return denials;
}

function vapCases(objs, cases, report) {
  const results = [];
  for (const c of cases) {
    let denials, ok, why;
    try {
      denials = admit(objs, c.request);
      ok = c.expect === "deny" ? denials.some((d) => d.startsWith(`${c.policy}:`)) : denials.length === 0;
      why = denials.join("; ") || "allowed";
    } catch (e) {
      ok = false;
      why = `error: ${e.message.split("\n")[0]}`;
    }
    results.push(ok);
    if (report) say(ok, `admission: ${c.name} -> ${c.expect}`, why);
  }
  return results;
}

// ---- mutants -------------------------------------------------------------------
function mutants(text, list, judge) {
  for (const m of list) {
    const n = text.split(m.from).length - 1;
    if (n !== 1) { say(false, `mutant "${m.name}"`, `the line to mutate occurs ${n} times`); continue; }
    let caught;
    try {
      caught = judge(text.replace(m.from, m.to)).filter((r) => !r).length;
    } catch (e) {
      caught = 1;
    }
    say(caught > 0, `mutant "${m.name}" is caught (${caught} rows fail)`, "no row fails: the cases do not guard this");
  }
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === "schema") await schema(args);
else if (cmd === "nfd") {
  const text = readFileSync(args[0], "utf8");
  const spec = yaml.load(readFileSync(args[1], "utf8"));
  const now = Date.parse("2026-12-01T20:00:00Z");
  nodeCases(docs(text), spec.cases, now, true);
  mutants(text, spec.mutants, (t) => nodeCases(docs(t), spec.cases, now, false));
} else if (cmd === "vap") {
  const text = readFileSync(args[0], "utf8");
  const spec = yaml.load(readFileSync(args[1], "utf8"));
  vapCases(docs(text), spec.cases, true);
  mutants(text, spec.mutants, (t) => vapCases(docs(t), spec.cases, false));
} else {
  console.error("usage: eval.mjs schema FILE... | nfd RULES CASES | vap POLICY CASES");
  process.exit(2);
}
