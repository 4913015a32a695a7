//! `eval`: run a routing evaluation set against an agent, print OK/MISS per
//! case and the accuracy, in all and per language, write a JSON report,
//! and fail below a threshold.
//! The decision comes from the `routing` metadata of the agent's status
//! message, never from the reply text.

use super::output::{Routing, TaskView};
use super::{AgentArgs, CliError, EXIT_BELOW_THRESHOLD, print};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The shipped set: the twelve walkthrough cases, then more English and
/// the German, French and Spanish sets.
pub const BUILT_IN_SET: &str = include_str!("../../data/routing_eval.json");
const BUILT_IN_NAME: &str = "data/routing_eval.json (built in)";

pub const EXAMPLES: &str = "\
Examples:
  order-exception-agent eval
  order-exception-agent eval --set my-cases.toml --out report.json
  order-exception-agent eval --url http://127.0.0.1:8080/ --threshold 90%

Set files (.json or .toml, by extension). JSON: an array of cases, as in
data/routing_eval.json:
  [ { \"text\": \"why is order 4711 blocked by credit\", \"expected\": \"credit\" },
    { \"text\": \"Kreditsperre bei 4711\", \"expected\": \"credit\", \"language\": \"de\" },
    { \"text\": \"book a meeting room for tomorrow\", \"expected\": null } ]
TOML: one [[case]] table per case:
  [[case]]
  text = \"why is order 4711 blocked by credit\"
  expected = \"credit\"
  [[case]]
  text = \"book a meeting room for tomorrow\"
  expected = \"none\"
`expected` is a skill id of the card; null, \"none\" or leaving it out means
no specialist (the agent must ask which problem it is). `language` (optional)
groups the accuracy per language; without it a case counts under the
language the agent reports.

Exit codes: 0 accuracy at or above the threshold, 1 below it, 2 bad
arguments or set file, 3 the agent could not be reached or answered an error.";

#[derive(Debug, Clone, clap::Args)]
pub struct EvalArgs {
    #[command(flatten)]
    pub target: AgentArgs,

    /// The evaluation set (.json or .toml); default: the cases built into
    /// the binary (data/routing_eval.json).
    #[arg(long, value_name = "FILE")]
    pub set: Option<PathBuf>,

    /// Write the JSON report here.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// The lowest accepted accuracy in percent (`95` or `95%`).
    #[arg(long, value_name = "PERCENT", default_value = "100", value_parser = parse_threshold)]
    pub threshold: f64,
}

/// One case: a request and the skill id it must reach (`None`: no specialist).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Case {
    pub text: String,
    #[serde(default)]
    pub expected: Option<String>,
    /// The language the case is in (`en`, `de`, …), for the accuracy per
    /// language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

#[derive(Deserialize)]
struct Table {
    case: Vec<Case>,
}

pub fn parse_threshold(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches('%').trim();
    match number.parse::<f64>() {
        Ok(value) if (0.0..=100.0).contains(&value) => Ok(value),
        _ => Err(format!("`{text}` is not a percentage from 0 to 100")),
    }
}

/// Cases from JSON: an array, or an object with a `case` array.
pub fn parse_json(text: &str) -> Result<Vec<Case>, String> {
    let value: Value = serde_json::from_str(text).map_err(|error| error.to_string())?;
    let cases = match value {
        Value::Array(_) => serde_json::from_value(value),
        Value::Object(mut object) if object.contains_key("case") => {
            serde_json::from_value(object.remove("case").unwrap_or_default())
        }
        _ => return Err("expected an array of cases ({\"text\", \"expected\"})".into()),
    };
    cases.map_err(|error| error.to_string())
}

/// Cases from TOML: `[[case]]` tables.
pub fn parse_toml(text: &str) -> Result<Vec<Case>, String> {
    toml::from_str::<Table>(text)
        .map(|table| table.case)
        .map_err(|error| error.to_string().trim().replace('\n', " "))
}

/// `"none"` and `""` mean no specialist; every case needs text.
fn normalize(cases: Vec<Case>) -> Result<Vec<Case>, String> {
    if cases.is_empty() {
        return Err("the set has no cases".into());
    }
    cases
        .into_iter()
        .enumerate()
        .map(|(index, case)| {
            if case.text.trim().is_empty() {
                return Err(format!("case {} has no text", index + 1));
            }
            let expected = case
                .expected
                .map(|expected| expected.trim().to_string())
                .filter(|expected| !expected.is_empty() && !expected.eq_ignore_ascii_case("none"));
            let language = case
                .language
                .map(|language| language.trim().to_lowercase())
                .filter(|language| !language.is_empty());
            Ok(Case {
                text: case.text,
                expected,
                language,
            })
        })
        .collect()
}

/// The set `--set` names, or the built-in one; and how to name it.
pub fn load_set(path: Option<&Path>) -> Result<(Vec<Case>, String), CliError> {
    let Some(path) = path else {
        let cases = parse_json(BUILT_IN_SET)
            .and_then(normalize)
            .map_err(|error| CliError::Input(format!("the built-in set: {error}")))?;
        return Ok((cases, BUILT_IN_NAME.into()));
    };
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|error| CliError::Input(format!("cannot read {shown}: {error}")))?;
    let extension = path
        .extension()
        .and_then(|extension| extension.to_str())
        .map(str::to_ascii_lowercase);
    let cases = match extension.as_deref() {
        Some("json") => parse_json(&text),
        Some("toml") => parse_toml(&text),
        _ => {
            return Err(CliError::Input(format!(
                "{shown}: the set file must end in .json or .toml"
            )));
        }
    };
    let cases = cases
        .and_then(normalize)
        .map_err(|error| CliError::Input(format!("{shown}: {error}")))?;
    Ok((cases, shown))
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseResult {
    pub text: String,
    pub expected: Option<String>,
    /// The case's language, or else the one the agent reported.
    pub language: Option<String>,
    /// What the router chose (`None`: no specialist, or not reported).
    pub specialist: Option<String>,
    pub ok: bool,
    /// False when the answer carried no `routing` metadata.
    pub routing_reported: bool,
    pub basis: Option<String>,
    pub scores: BTreeMap<String, f64>,
    pub state: String,
    pub task_id: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub endpoint: String,
    pub set: String,
    pub total: usize,
    pub passed: usize,
    pub accuracy_percent: f64,
    pub threshold_percent: f64,
    pub meets_threshold: bool,
    /// The accuracy per language, by language code.
    pub by_language: BTreeMap<String, LanguageTally>,
    pub cases: Vec<CaseResult>,
}

/// One language's cases.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LanguageTally {
    pub total: usize,
    pub passed: usize,
    pub accuracy_percent: f64,
}

/// The share of `passed` in `total`, in percent (0 for no cases).
fn percent(passed: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        passed as f64 * 100.0 / total as f64
    }
}

/// Cases without a language count here.
const NO_LANGUAGE: &str = "?";

impl Report {
    pub fn new(endpoint: String, set: String, threshold: f64, cases: Vec<CaseResult>) -> Report {
        let total = cases.len();
        let passed = cases.iter().filter(|case| case.ok).count();
        let accuracy_percent = percent(passed, total);
        let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for case in &cases {
            let language = case.language.as_deref().unwrap_or(NO_LANGUAGE);
            let (total, passed) = counts.entry(language.to_string()).or_default();
            *total += 1;
            *passed += usize::from(case.ok);
        }
        let by_language = counts
            .into_iter()
            .map(|(language, (total, passed))| {
                let tally = LanguageTally {
                    total,
                    passed,
                    accuracy_percent: percent(passed, total),
                };
                (language, tally)
            })
            .collect();
        Report {
            endpoint,
            set,
            total,
            passed,
            accuracy_percent,
            threshold_percent: threshold,
            // Compared in whole counts, so 12/12 meets 100 exactly.
            meets_threshold: passed as f64 * 100.0 >= threshold * total as f64,
            by_language,
            cases,
        }
    }

    /// One line per language: `de: 40/40 routed as expected: 100.0 %`.
    pub fn language_lines(&self) -> Vec<String> {
        self.by_language
            .iter()
            .map(|(language, tally)| {
                format!(
                    "{language}: {}/{} routed as expected: {:.1} %",
                    tally.passed, tally.total, tally.accuracy_percent
                )
            })
            .collect()
    }

    pub fn summary(&self) -> String {
        format!(
            "{}/{} routed as expected: {:.1} % (threshold {} %): {}",
            self.passed,
            self.total,
            self.accuracy_percent,
            self.threshold_percent,
            if self.meets_threshold {
                "passed"
            } else {
                "FAILED"
            }
        )
    }
}

fn name(skill: Option<&str>) -> &str {
    skill.unwrap_or("none")
}

/// `OK    credit      text` or `MISS  credit      text  (expected …)`.
pub fn case_line(case: &CaseResult) -> String {
    let got = if case.routing_reported {
        name(case.specialist.as_deref())
    } else {
        "?"
    };
    let mut line = format!(
        "{:<5} {:<11} {}",
        if case.ok { "OK" } else { "MISS" },
        got,
        case.text
    );
    if !case.ok {
        let why = if case.routing_reported {
            format!(
                "{}; {}",
                case.basis.as_deref().unwrap_or("?"),
                super::output::format_scores(&case.scores)
            )
        } else {
            "the answer has no routing metadata".into()
        };
        line.push_str(&format!(
            "  (expected {}; {why})",
            name(case.expected.as_deref())
        ));
    }
    line
}

pub async fn run(args: EvalArgs) -> Result<u8, CliError> {
    let (cases, set_name) = load_set(args.set.as_deref())?;
    let connection = args.target.connect(None).await?;
    print::line(&format!(
        "Routing evaluation: {} cases from {} at {}",
        cases.len(),
        set_name,
        connection.describe()
    ))?;
    let mut results = Vec::with_capacity(cases.len());
    for case in cases {
        let task = connection.client.send_text(&case.text, None, None).await?;
        let view = TaskView::of(&task);
        let (reported, basis, scores) = match &view.routing {
            Routing::Reported(decision) => (
                true,
                Some(decision.basis.to_string()),
                decision.scores.clone(),
            ),
            Routing::NotReported => (false, None, BTreeMap::new()),
        };
        let specialist = view.routing.specialist().map(str::to_string);
        let reported_language = match &view.routing {
            Routing::Reported(decision) => decision.language.map(|l| l.code().to_string()),
            Routing::NotReported => None,
        };
        let result = CaseResult {
            ok: reported && specialist == case.expected,
            text: case.text,
            expected: case.expected,
            language: case.language.or(reported_language),
            specialist,
            routing_reported: reported,
            basis,
            scores,
            state: view.state.as_str().to_string(),
            task_id: view.task_id,
        };
        print::line(&case_line(&result))?;
        results.push(result);
    }
    let report = Report::new(
        connection.client.endpoint().to_string(),
        set_name,
        args.threshold,
        results,
    );
    print::line(&report.summary())?;
    for line in report.language_lines() {
        print::line(&line)?;
    }
    if let Some(path) = &args.out {
        let write_error = |reason: String| CliError::Write {
            path: path.display().to_string(),
            reason,
        };
        let text = serde_json::to_string_pretty(&report)
            .map_err(|error| write_error(error.to_string()))?;
        std::fs::write(path, text + "\n").map_err(|error| write_error(error.to_string()))?;
        print::line(&format!("report written to {}", path.display()))?;
    }
    Ok(if report.meets_threshold {
        0
    } else {
        EXIT_BELOW_THRESHOLD
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_set_is_the_walkthrough_then_each_language() {
        let (cases, name) = load_set(None).unwrap();
        assert_eq!(name, BUILT_IN_NAME);
        assert_eq!(cases[8].text, "Incomplete: delivery address data missing.");
        assert_eq!(cases[8].expected.as_deref(), Some("masterdata"));
        assert_eq!(cases[11].expected, None, "the meeting room fits no one");
        let count = |language: &str| {
            cases
                .iter()
                .filter(|case| case.language.as_deref() == Some(language))
                .count()
        };
        assert!(
            cases[..12]
                .iter()
                .all(|case| case.language.as_deref() == Some("en"))
        );
        assert!(count("de") >= 30, "{}", count("de"));
        assert!(count("fr") >= 10, "{}", count("fr"));
        assert!(count("es") >= 10, "{}", count("es"));
        assert_eq!(
            count("en") + count("de") + count("fr") + count("es"),
            cases.len()
        );
    }

    #[test]
    fn json_and_toml_sets_mean_the_same() {
        let json = parse_json(
            r#"[{"text": "order 4723 is incomplete", "expected": "masterdata"},
                {"text": "book a room", "expected": null},
                {"text": "hello", "expected": "none"}]"#,
        )
        .and_then(normalize)
        .unwrap();
        let toml = parse_toml(
            "[[case]]\ntext = \"order 4723 is incomplete\"\nexpected = \"masterdata\"\n\
             [[case]]\ntext = \"book a room\"\n\
             [[case]]\ntext = \"hello\"\nexpected = \"none\"\n",
        )
        .and_then(normalize)
        .unwrap();
        assert_eq!(json, toml);
        assert_eq!(json[1].expected, None);
        assert_eq!(json[2].expected, None);
        let wrapped = parse_json(r#"{"case": [{"text": "x", "expected": "credit"}]}"#).unwrap();
        assert_eq!(wrapped[0].expected.as_deref(), Some("credit"));
    }

    #[test]
    fn bad_sets_are_refused_with_a_reason() {
        assert!(parse_json(r#"{"text": "x"}"#).is_err());
        assert!(
            parse_json(r#"[{"expected": "credit"}]"#)
                .unwrap_err()
                .contains("text")
        );
        assert!(parse_toml("[[case]]\nexpected = 3\n").is_err());
        assert!(normalize(Vec::new()).is_err());
        let blank = vec![Case {
            text: " ".into(),
            expected: None,
            language: None,
        }];
        assert_eq!(normalize(blank).unwrap_err(), "case 1 has no text");
    }

    #[test]
    fn thresholds_are_percentages() {
        assert_eq!(parse_threshold("100"), Ok(100.0));
        assert_eq!(parse_threshold("92.5%"), Ok(92.5));
        assert!(parse_threshold("101").is_err());
        assert!(parse_threshold("most").is_err());
    }

    fn result(ok: bool) -> CaseResult {
        CaseResult {
            text: "t".into(),
            expected: Some("credit".into()),
            language: Some("en".into()),
            specialist: Some(if ok { "credit" } else { "pricing" }.into()),
            ok,
            routing_reported: true,
            basis: Some("text".into()),
            scores: BTreeMap::from([("credit".into(), 1.0), ("pricing".into(), 2.5)]),
            state: "completed".into(),
            task_id: "t-1".into(),
        }
    }

    #[test]
    fn accuracy_meets_the_threshold_in_whole_counts() {
        let all = Report::new("u".into(), "s".into(), 100.0, vec![result(true); 12]);
        assert!(all.meets_threshold);
        assert_eq!(
            all.summary(),
            "12/12 routed as expected: 100.0 % (threshold 100 %): passed"
        );
        let mut cases = vec![result(true); 2];
        cases.push(result(false));
        let two_of_three = Report::new("u".into(), "s".into(), 100.0, cases.clone());
        assert!(!two_of_three.meets_threshold);
        assert!(two_of_three.summary().ends_with("FAILED"));
        assert!(Report::new("u".into(), "s".into(), 60.0, cases).meets_threshold);
    }

    #[test]
    fn accuracy_is_reported_per_language() {
        let german = |ok: bool| CaseResult {
            language: Some("de".into()),
            ..result(ok)
        };
        let unnamed = CaseResult {
            language: None,
            ..result(true)
        };
        let report = Report::new(
            "u".into(),
            "s".into(),
            50.0,
            vec![result(true), german(true), german(false), unnamed],
        );
        assert_eq!(
            report.language_lines(),
            [
                "?: 1/1 routed as expected: 100.0 %",
                "de: 1/2 routed as expected: 50.0 %",
                "en: 1/1 routed as expected: 100.0 %",
            ]
        );
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["byLanguage"]["de"]["passed"], 1);
        assert_eq!(json["byLanguage"]["de"]["accuracyPercent"], 50.0);
    }

    #[test]
    fn a_miss_shows_what_was_expected_and_the_scores() {
        assert_eq!(case_line(&result(true)), "OK    credit      t");
        assert_eq!(
            case_line(&result(false)),
            "MISS  pricing     t  (expected credit; text; pricing 2.50, credit 1.00)"
        );
    }
}
