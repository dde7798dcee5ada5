//! Plugin parameters, declared once beside the plugin that reads them (ns-3's TypeId
//! attributes, quinn-proto's `CubicConfig`): a name, a unit, a default, a range and one line of
//! doc. The declaration is the single source of everything that accepts a parameter: the
//! engine checks a scenario's values against it ([`check`]), exports it
//! ([`crate::tcp::variant::registry_json`]) and the Python front builds from that export its
//! schema, `simulate()`'s keywords, the command line's flags, the TOML keys and the README's
//! table.
//!
//! A plugin declares its parameters with [`declare_params!`](crate::declare_params!): a struct whose fields carry the
//! values, each field with its [`Param`]. A scenario carries the values a user gave, by name
//! ([`Values`], `TcpConfig::params`); what is not given takes the declared default.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A parameter's value as a scenario carries it (JSON: a boolean, a number or a string).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

impl std::fmt::Display for Value {
    /// As the scenario wrote it, for error messages: a number as a person reads it (1e300
    /// rather than three hundred digits), text quoted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) if *x != 0.0 && x.is_finite() && !(1e-4..1e6).contains(&x.abs()) => {
                write!(f, "{x:e}")
            }
            Value::Float(x) => write!(f, "{x}"),
            Value::Text(t) => write!(f, "{t:?}"),
        }
    }
}

/// The values a scenario gives, by parameter name.
pub type Values = BTreeMap<String, Value>;

/// What a parameter holds and its valid range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Bool,
    /// An integer in `[min, max]`.
    Int {
        min: i64,
        max: i64,
    },
    /// A finite number between `min` and `max`, each bound closed unless marked open.
    Float {
        min: f64,
        max: f64,
        min_open: bool,
        max_open: bool,
    },
    /// One of these words.
    Choice(&'static [&'static str]),
}

/// A declared default (a `Value` that can live in a constant).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DefaultValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    Choice(&'static str),
}

impl DefaultValue {
    pub fn value(self) -> Value {
        match self {
            DefaultValue::Bool(b) => Value::Bool(b),
            DefaultValue::Int(i) => Value::Int(i),
            DefaultValue::Float(x) => Value::Float(x),
            DefaultValue::Choice(s) => Value::Text(s.to_string()),
        }
    }
}

/// One declared parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Param {
    /// Globally unique, prefixed by its plugin (`cubic_beta`); units in the name as everywhere
    /// (`westwood_tau_s`). Plugins that share a setting declare the same `Param` (one
    /// constant, e.g. `bbr_pacing_burst` of `bbr` and `bbr3`); the registry lists its owners.
    pub name: &'static str,
    /// The unit of the value ("" for a pure number or a switch).
    pub unit: &'static str,
    pub kind: Kind,
    pub default: DefaultValue,
    /// One line: what it is, where its rule comes from.
    pub doc: &'static str,
    /// The value must not exceed this other parameter's (Vegas's alpha <= beta).
    pub at_most: Option<&'static str>,
    /// The ns-2 2.35 agent variable of the same setting, if any (`v_alpha_`).
    pub ns2: Option<&'static str>,
    /// The ns-3 3.37 attribute of the same setting, if any (`ns3::TcpCubic::Beta`).
    pub ns3: Option<&'static str>,
}

impl Param {
    const fn new(
        name: &'static str,
        unit: &'static str,
        kind: Kind,
        default: DefaultValue,
    ) -> Self {
        Self {
            name,
            unit,
            kind,
            default,
            doc: "",
            at_most: None,
            ns2: None,
            ns3: None,
        }
    }
    /// A number in the closed range `[min, max]`.
    pub const fn float(
        name: &'static str,
        unit: &'static str,
        default: f64,
        min: f64,
        max: f64,
    ) -> Self {
        let kind = Kind::Float {
            min,
            max,
            min_open: false,
            max_open: false,
        };
        Self::new(name, unit, kind, DefaultValue::Float(default))
    }
    pub const fn int(
        name: &'static str,
        unit: &'static str,
        default: i64,
        min: i64,
        max: i64,
    ) -> Self {
        Self::new(
            name,
            unit,
            Kind::Int { min, max },
            DefaultValue::Int(default),
        )
    }
    pub const fn flag(name: &'static str, default: bool) -> Self {
        Self::new(name, "", Kind::Bool, DefaultValue::Bool(default))
    }
    pub const fn choice(
        name: &'static str,
        choices: &'static [&'static str],
        default: &'static str,
    ) -> Self {
        Self::new(
            name,
            "",
            Kind::Choice(choices),
            DefaultValue::Choice(default),
        )
    }
    /// The lower bound is excluded.
    pub const fn open_min(mut self) -> Self {
        if let Kind::Float {
            min, max, max_open, ..
        } = self.kind
        {
            self.kind = Kind::Float {
                min,
                max,
                min_open: true,
                max_open,
            };
        }
        self
    }
    /// The upper bound is excluded.
    pub const fn open_max(mut self) -> Self {
        if let Kind::Float {
            min, max, min_open, ..
        } = self.kind
        {
            self.kind = Kind::Float {
                min,
                max,
                min_open,
                max_open: true,
            };
        }
        self
    }
    pub const fn at_most(mut self, other: &'static str) -> Self {
        self.at_most = Some(other);
        self
    }
    pub const fn ns2(mut self, var: &'static str) -> Self {
        self.ns2 = Some(var);
        self
    }
    pub const fn ns3(mut self, attr: &'static str) -> Self {
        self.ns3 = Some(attr);
        self
    }
    /// Set by [`declare_params!`](crate::declare_params!) from the field's doc comment.
    pub const fn doc(mut self, doc: &'static str) -> Self {
        self.doc = doc;
        self
    }

    /// The valid range in words, for error messages (the Python front words its own from the
    /// same declaration).
    pub fn range_text(&self) -> String {
        match self.kind {
            Kind::Bool => "true or false".into(),
            Kind::Int { min, max } => format!("an integer in [{min}, {max}]"),
            Kind::Float {
                min,
                max,
                min_open,
                max_open,
            } => format!(
                "a number in {}{min}, {max}{}",
                if min_open { "(" } else { "[" },
                if max_open { ")" } else { "]" }
            ),
            Kind::Choice(c) => format!("one of {}", c.join(", ")),
        }
    }

    /// The value as this parameter's type, if it is of that type and in range.
    pub fn admit(&self, v: &Value) -> Option<Value> {
        match (self.kind, v) {
            (Kind::Bool, Value::Bool(_)) => Some(v.clone()),
            (Kind::Int { min, max }, Value::Int(i)) => (min..=max).contains(i).then(|| v.clone()),
            (
                Kind::Float {
                    min,
                    max,
                    min_open,
                    max_open,
                },
                Value::Int(_) | Value::Float(_),
            ) => {
                let x = match v {
                    Value::Int(i) => *i as f64,
                    Value::Float(x) => *x,
                    _ => unreachable!(),
                };
                let low = if min_open { x > min } else { x >= min };
                let high = if max_open { x < max } else { x <= max };
                (x.is_finite() && low && high).then_some(Value::Float(x))
            }
            (Kind::Choice(c), Value::Text(s)) => c.contains(&s.as_str()).then(|| v.clone()),
            _ => None,
        }
    }

    /// The value a scenario gives for it, or the default.
    fn resolve(&self, values: &Values) -> Value {
        values
            .get(self.name)
            .and_then(|v| self.admit(v))
            .unwrap_or_else(|| self.default.value())
    }
}

/// A Rust type a parameter's value is read into.
pub trait FromParam: Sized {
    fn read(p: &Param, values: &Values) -> Self;
}

impl FromParam for f64 {
    fn read(p: &Param, values: &Values) -> Self {
        match p.resolve(values) {
            Value::Float(x) => x,
            Value::Int(i) => i as f64,
            other => panic!("parameter {} declared as a number holds {other:?}", p.name),
        }
    }
}

impl FromParam for u32 {
    fn read(p: &Param, values: &Values) -> Self {
        match p.resolve(values) {
            Value::Int(i) => u32::try_from(i).expect("the declared range fits u32"),
            other => panic!(
                "parameter {} declared as an integer holds {other:?}",
                p.name
            ),
        }
    }
}

impl FromParam for bool {
    fn read(p: &Param, values: &Values) -> Self {
        match p.resolve(values) {
            Value::Bool(b) => b,
            other => panic!("parameter {} declared as a switch holds {other:?}", p.name),
        }
    }
}

/// Declares a plugin's parameters: a struct of their values, one field per parameter, each
/// field's doc comment the parameter's doc (one sentence; its lines are joined) and its initialiser the [`Param`]
/// (name, unit, default, range). The struct gets `PARAMS` (the declaration),
/// `from_values` (the values a scenario gives, defaults for the rest) and `Default`.
///
/// ```
/// lossytcp_sim::declare_params! {
///     /// A plugin's settings.
///     pub struct ExampleParams {
///         /// Segments queued below which the window grows.
///         alpha: u32 = lossytcp_sim::tcp::params::Param::int("example_alpha", "segments", 1, 0, 100),
///     }
/// }
/// assert_eq!(ExampleParams::default().alpha, 1);
/// assert_eq!(ExampleParams::PARAMS[0].doc, "Segments queued below which the window grows.");
/// ```
#[macro_export]
macro_rules! declare_params {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[doc = $doc:literal])+
                $field:ident : $ty:ty = $spec:expr,
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq)]
        $vis struct $name {
            $( $(#[doc = $doc])+ pub $field: $ty, )*
        }

        impl $name {
            /// The declaration, one entry per field in order.
            pub const PARAMS: &'static [$crate::tcp::params::Param] = &[
                $( $spec.doc(concat!($($doc),+).trim_ascii_start()), )*
            ];

            /// The values `values` gives, the declared defaults for the rest (checked
            /// beforehand by [`$crate::tcp::params::check`]).
            pub fn from_values(values: &$crate::tcp::params::Values) -> Self {
                let mut specs = Self::PARAMS.iter();
                Self {
                    $( $field: <$ty as $crate::tcp::params::FromParam>::read(
                        specs.next().expect("one Param per field"), values), )*
                }
            }
        }

        impl ::core::default::Default for $name {
            fn default() -> Self {
                Self::from_values(&$crate::tcp::params::Values::new())
            }
        }
    };
}

/// Declares an enum a choice parameter is read into: each variant with its word.
#[macro_export]
macro_rules! param_choice {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $word:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// The words, in declaration order (a choice parameter's `Kind::Choice`).
            pub const WORDS: &'static [&'static str] = &[$($word),+];
        }

        impl $crate::tcp::params::FromParam for $name {
            fn read(p: &$crate::tcp::params::Param, values: &$crate::tcp::params::Values) -> Self {
                let word = match values.get(p.name).and_then(|v| p.admit(v)) {
                    Some($crate::tcp::params::Value::Text(s)) => s,
                    _ => match p.default {
                        $crate::tcp::params::DefaultValue::Choice(s) => s.to_string(),
                        other => panic!("parameter {} declared as a choice defaults to {other:?}", p.name),
                    },
                };
                match word.as_str() {
                    $( $word => $name::$variant, )+
                    other => panic!("parameter {} has no choice {other:?}", p.name),
                }
            }
        }
    };
}

/// Checks the values a scenario gives against the declaration of the parameters a variant
/// takes: every name known to it, every value of its type and in range, every `at_most`
/// respected. `owner` names the place for the message (`flows[0]`).
pub fn check(owner: &str, variant: &str, values: &Values, specs: &[&Param]) -> Result<(), String> {
    for (name, v) in values {
        let Some(p) = specs.iter().find(|p| p.name == name) else {
            return Err(format!(
                "{owner}.params.{name}: variant {variant} takes no such parameter{}",
                if specs.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (its parameters: {})",
                        specs.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
                    )
                }
            ));
        };
        if p.admit(v).is_none() {
            return Err(format!(
                "{owner}.params.{name} = {v} must be {}",
                p.range_text()
            ));
        }
    }
    for p in specs {
        let Some(other) = p.at_most else { continue };
        let Some(q) = specs.iter().find(|q| q.name == other) else {
            continue;
        };
        let (x, y) = (f64::read(p, values), f64::read(q, values));
        if x > y {
            return Err(format!(
                "{owner}.params.{} = {x} must be <= {} = {y}",
                p.name, q.name
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    param_choice! {
        enum Mode {
            Fast = "fast",
            Slow = "slow",
        }
    }

    crate::declare_params! {
        /// Test settings.
        struct P {
            /// Lower bound.
            lo: u32 = Param::int("t_lo", "segments", 1, 0, 10).at_most("t_hi"),
            /// Upper bound.
            hi: u32 = Param::int("t_hi", "segments", 3, 0, 10),
            /// A gain.
            gain: f64 = Param::float("t_gain", "", 0.5, 0.0, 1.0).open_min(),
            /// A switch.
            on: bool = Param::flag("t_on", true),
            /// A mode.
            mode: Mode = Param::choice("t_mode", Mode::WORDS, "slow"),
        }
    }

    fn values(pairs: &[(&str, Value)]) -> Values {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn defaults_come_from_the_declaration() {
        let p = P::default();
        assert_eq!(
            (p.lo, p.hi, p.gain, p.on, p.mode),
            (1, 3, 0.5, true, Mode::Slow)
        );
        assert_eq!(P::PARAMS[2].doc, "A gain.");
        assert_eq!(P::PARAMS[0].at_most, Some("t_hi"));
    }

    #[test]
    fn given_values_are_read_by_name() {
        let v = values(&[
            ("t_lo", Value::Int(2)),
            ("t_gain", Value::Int(1)),
            ("t_mode", Value::Text("fast".into())),
            ("t_on", Value::Bool(false)),
        ]);
        let p = P::from_values(&v);
        assert_eq!((p.lo, p.gain, p.on, p.mode), (2, 1.0, false, Mode::Fast));
    }

    #[test]
    fn check_names_the_parameter_the_value_and_the_range() {
        let specs: Vec<&Param> = P::PARAMS.iter().collect();
        let ok = values(&[("t_lo", Value::Int(3))]);
        assert_eq!(check("flows[0]", "x", &ok, &specs), Ok(()));
        let cases = [
            (
                ("t_gain", Value::Float(0.0)),
                "t_gain = 0 must be a number in (0, 1]",
            ),
            (("t_lo", Value::Int(11)), "must be an integer in [0, 10]"),
            (("t_lo", Value::Int(4)), "t_lo = 4 must be <= t_hi = 3"),
            (
                ("t_mode", Value::Text("x".into())),
                "must be one of fast, slow",
            ),
            (("t_on", Value::Int(1)), "t_on = 1 must be true or false"),
            (
                ("t_gain", Value::Float(1e300)),
                "t_gain = 1e300 must be a number in (0, 1]",
            ),
            (("nope", Value::Int(1)), "variant x takes no such parameter"),
        ];
        for ((k, v), msg) in cases {
            let e = check("flows[0]", "x", &values(&[(k, v)]), &specs).unwrap_err();
            assert!(e.contains(msg), "{e}");
        }
    }
}
