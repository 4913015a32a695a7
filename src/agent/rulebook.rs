//! The rule book: which action each specialist may propose and which
//! actions each role may have filed. An action is offered for approval only
//! where both allow it (the intersection); nothing else ever files. It also
//! says which roles take a [`Decision`] beyond filing when they approve
//! (`release_credit_block`), only ever with an action the role may approve.

use super::decision::{Decision, UnknownDecision};
use super::proposal::{Action, UnknownAction};
use crate::roles::{BusinessRole, UnknownRole};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The rule book: who may do what. Unset entries keep the seed defaults.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RulesSettings {
    /// BusinessRole name → the actions that role may have filed (replaces the seed
    /// for that role).
    pub roles: std::collections::BTreeMap<String, Vec<String>>,
    /// Specialist skill id → the actions it may propose (replaces what the
    /// specialist declares; an empty list silences its proposals).
    pub proposals: std::collections::BTreeMap<String, Vec<String>>,
    /// Decision name → the roles that may take it (replaces the seed for
    /// that decision; an empty list: no role).
    pub decisions: std::collections::BTreeMap<String, Vec<String>>,
    /// The roles that read every filed action in `GET /actions` (replaces
    /// the seed, `auditor`; an empty list: no role). Everyone else reads
    /// the rows they approved.
    pub ledger_readers: Option<Vec<String>>,
}

impl RulesSettings {
    /// The roles that read every filed action, as these settings say.
    pub fn ledger_readers(&self) -> Result<BTreeSet<BusinessRole>, RuleBookError> {
        match &self.ledger_readers {
            None => Ok(BusinessRole::ALL
                .into_iter()
                .filter(|role| role.seed_reads_every_action())
                .collect()),
            Some(names) => names
                .iter()
                .map(|name| name.parse::<BusinessRole>())
                .collect::<Result<_, _>>()
                .map_err(RuleBookError::LedgerReader),
        }
    }
}

#[derive(Debug, Clone)]
pub struct RuleBook {
    proposals: BTreeMap<String, BTreeSet<Action>>,
    roles: BTreeMap<BusinessRole, BTreeSet<Action>>,
    decisions: BTreeMap<Decision, BTreeSet<BusinessRole>>,
}

#[derive(Debug, thiserror::Error)]
pub enum RuleBookError {
    #[error("rules.roles: {0}")]
    BusinessRole(#[from] UnknownRole),
    #[error("rules: {0}")]
    Action(#[from] UnknownAction),
    #[error("rules.proposals: unknown specialist `{0}` (known: {1})")]
    Specialist(String, String),
    #[error("rules.decisions: {0}")]
    Decision(#[from] UnknownDecision),
    #[error("rules.decisions: {0}")]
    DecisionRole(UnknownRole),
    #[error("rules.ledger_readers: {0}")]
    LedgerReader(UnknownRole),
}

/// What the rule book says about one proposal for one caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Permission {
    /// The caller may approve it, acting as this role.
    Granted(BusinessRole),
    /// The specialist may not propose this action at all.
    NotProposable,
    /// No role of the caller's may do it; these roles may.
    Denied { may_decide: Vec<BusinessRole> },
}

/// What the rule book in force offers for one skill: the action its
/// specialist proposes and the roles that may approve it. The extended
/// card says this, so it names the approvers the rule book will accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfferedAction {
    pub skill: &'static str,
    pub action: Action,
    /// Empty when no role may have the action filed.
    pub approvers: Vec<BusinessRole>,
    /// The decisions that go with approving it, and who may take them.
    pub decisions: Vec<OfferedDecision>,
}

/// A decision that goes with an offered action and the roles that may
/// take it (each also one that may approve the action).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfferedDecision {
    pub decision: Decision,
    pub roles: Vec<BusinessRole>,
}

fn actions(names: &[String]) -> Result<BTreeSet<Action>, UnknownAction> {
    names.iter().map(|name| name.parse()).collect()
}

impl RuleBook {
    /// May `role` release a credit block when it approves a credit review
    /// (the rule book's `release_credit_block`; the 5 percent bound is the
    /// credit policy's, checked on the proposal)?
    pub fn may_release_credit_block(&self, role: BusinessRole) -> bool {
        self.may_decide(Decision::ReleaseCreditBlock, role)
    }

    /// May `role` take `decision`: the decision is the role's, and so is
    /// the action it goes with.
    pub fn may_decide(&self, decision: Decision, role: BusinessRole) -> bool {
        self.decisions
            .get(&decision)
            .is_some_and(|roles| roles.contains(&role))
            && self
                .roles
                .get(&role)
                .is_some_and(|allowed| allowed.contains(&decision.action()))
    }

    /// The roles that may take `decision`.
    pub fn deciders(&self, decision: Decision) -> Vec<BusinessRole> {
        BusinessRole::ALL
            .into_iter()
            .filter(|role| self.may_decide(decision, *role))
            .collect()
    }

    /// The seed defaults (roles from [`BusinessRole::seed_actions`], proposals from
    /// the specialists' registry), with the settings' entries replacing them.
    pub fn new(
        registry: &[(&str, Action)],
        settings: &RulesSettings,
    ) -> Result<RuleBook, RuleBookError> {
        let mut proposals: BTreeMap<String, BTreeSet<Action>> = BTreeMap::new();
        for (specialist, action) in registry {
            proposals
                .entry(specialist.to_string())
                .or_default()
                .insert(*action);
        }
        for (specialist, names) in &settings.proposals {
            if !proposals.contains_key(specialist) {
                let known: Vec<&str> = registry.iter().map(|(id, _)| *id).collect();
                return Err(RuleBookError::Specialist(
                    specialist.clone(),
                    known.join(", "),
                ));
            }
            proposals.insert(specialist.clone(), actions(names)?);
        }
        let mut roles = BTreeMap::new();
        for role in BusinessRole::ALL {
            let seed = role
                .seed_actions()
                .iter()
                .map(|name| name.parse())
                .collect::<Result<BTreeSet<Action>, _>>()?;
            roles.insert(role, seed);
        }
        for (name, names) in &settings.roles {
            roles.insert(name.parse::<BusinessRole>()?, actions(names)?);
        }
        let mut decisions: BTreeMap<Decision, BTreeSet<BusinessRole>> = Decision::ALL
            .into_iter()
            .map(|decision| (decision, decision.seed_roles().into_iter().collect()))
            .collect();
        for (name, role_names) in &settings.decisions {
            let decision: Decision = name.parse()?;
            let roles = role_names
                .iter()
                .map(|role| role.parse::<BusinessRole>())
                .collect::<Result<BTreeSet<_>, _>>()
                .map_err(RuleBookError::DecisionRole)?;
            decisions.insert(decision, roles);
        }
        Ok(RuleBook {
            proposals,
            roles,
            decisions,
        })
    }

    pub fn may_propose(&self, specialist: &str, action: Action) -> bool {
        self.proposals
            .get(specialist)
            .is_some_and(|allowed| allowed.contains(&action))
    }

    /// The roles that may have `action` filed.
    pub fn roles_for(&self, action: Action) -> Vec<BusinessRole> {
        self.roles
            .iter()
            .filter(|(_, allowed)| allowed.contains(&action))
            .map(|(role, _)| *role)
            .collect()
    }

    /// For each specialist of `registry` (skill id, the action it
    /// proposes) that the rule book lets propose that action: the action
    /// and who may approve it. A specialist whose proposals are silenced is
    /// left out.
    pub fn offered(&self, registry: &[(&'static str, Action)]) -> Vec<OfferedAction> {
        registry
            .iter()
            .filter(|(skill, action)| self.may_propose(skill, *action))
            .map(|(skill, action)| OfferedAction {
                skill,
                action: *action,
                approvers: self.roles_for(*action),
                decisions: Decision::ALL
                    .into_iter()
                    .filter(|decision| decision.action() == *action)
                    .map(|decision| OfferedDecision {
                        decision,
                        roles: self.deciders(decision),
                    })
                    .collect(),
            })
            .collect()
    }

    /// The effective permission: the specialist may propose it and one of
    /// the caller's roles may do it.
    pub fn decide(
        &self,
        specialist: &str,
        action: Action,
        roles: &BTreeSet<BusinessRole>,
    ) -> Permission {
        if !self.may_propose(specialist, action) {
            return Permission::NotProposable;
        }
        let granted = roles.iter().find(|role| {
            self.roles
                .get(role)
                .is_some_and(|allowed| allowed.contains(&action))
        });
        match granted {
            Some(role) => Permission::Granted(*role),
            None => Permission::Denied {
                may_decide: self.roles_for(action),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry() -> Vec<(&'static str, Action)> {
        vec![
            ("credit", Action::RequestCreditReview),
            ("pricing", Action::OpenDisputeCase),
            ("masterdata", Action::RequestMasterDataChange),
            ("delivery", Action::RequestDeliveryDateChange),
        ]
    }

    fn roles(names: &[BusinessRole]) -> BTreeSet<BusinessRole> {
        names.iter().copied().collect()
    }

    #[test]
    fn the_auditor_reads_every_action_unless_the_rule_book_names_others() {
        let seed = RulesSettings::default().ledger_readers().expect("seed");
        assert_eq!(seed, roles(&[BusinessRole::Auditor]));
        let named = RulesSettings {
            ledger_readers: Some(vec!["credit_manager".into()]),
            ..RulesSettings::default()
        };
        assert_eq!(
            named.ledger_readers().expect("a known role"),
            roles(&[BusinessRole::CreditManager])
        );
        let unknown = RulesSettings {
            ledger_readers: Some(vec!["boss".into()]),
            ..RulesSettings::default()
        };
        let error = unknown.ledger_readers().expect_err("an unknown role");
        assert!(
            error
                .to_string()
                .starts_with("rules.ledger_readers: unknown role `boss`")
        );
    }

    #[test]
    fn the_seed_is_the_intersection_of_specialist_and_role() {
        let book = RuleBook::new(&registry(), &RulesSettings::default()).expect("seed");
        let clerk = roles(&[BusinessRole::ArClerk]);
        assert_eq!(
            book.decide("pricing", Action::OpenDisputeCase, &clerk),
            Permission::Granted(BusinessRole::ArClerk)
        );
        assert_eq!(
            book.decide("credit", Action::RequestCreditReview, &clerk),
            Permission::Denied {
                may_decide: vec![BusinessRole::CreditManager]
            }
        );
        // A specialist proposing someone else's action is never offered.
        assert_eq!(
            book.decide("credit", Action::OpenDisputeCase, &clerk),
            Permission::NotProposable
        );
        assert_eq!(
            book.decide(
                "masterdata",
                Action::RequestMasterDataChange,
                &roles(&[BusinessRole::Viewer])
            ),
            Permission::Denied {
                may_decide: vec![BusinessRole::MasterDataSpecialist]
            }
        );
        assert!(matches!(
            book.decide("pricing", Action::OpenDisputeCase, &BTreeSet::new()),
            Permission::Denied { .. }
        ));
    }

    #[test]
    fn settings_replace_the_seed_and_unknown_names_are_refused() {
        let mut settings = RulesSettings::default();
        settings
            .roles
            .insert("viewer".into(), vec!["open_dispute_case".into()]);
        settings.proposals.insert("pricing".into(), Vec::new());
        let book = RuleBook::new(&registry(), &settings).expect("valid");
        assert_eq!(
            book.decide(
                "pricing",
                Action::OpenDisputeCase,
                &roles(&[BusinessRole::Viewer])
            ),
            Permission::NotProposable
        );
        assert_eq!(
            book.roles_for(Action::OpenDisputeCase),
            vec![
                BusinessRole::ArClerk,
                BusinessRole::CreditManager,
                BusinessRole::Viewer
            ]
        );

        // What the extended card shows follows the same book.
        let offered = book.offered(&registry());
        let pricing = offered.iter().find(|o| o.skill == "pricing");
        assert_eq!(pricing, None, "pricing proposes nothing any more");
        let credit = offered
            .iter()
            .find(|o| o.skill == "credit")
            .expect("credit still proposes");
        assert_eq!(credit.action, Action::RequestCreditReview);
        assert_eq!(credit.approvers, vec![BusinessRole::CreditManager]);

        let mut bad = RulesSettings::default();
        bad.roles.insert("cashier".into(), Vec::new());
        assert!(
            RuleBook::new(&registry(), &bad)
                .expect_err("unknown role")
                .to_string()
                .contains("unknown role `cashier`")
        );
        let mut bad = RulesSettings::default();
        bad.roles
            .insert("viewer".into(), vec!["release_order".into()]);
        assert!(
            RuleBook::new(&registry(), &bad)
                .expect_err("unknown action")
                .to_string()
                .contains("unknown action `release_order`")
        );
        let mut bad = RulesSettings::default();
        bad.decisions
            .insert("release_order".into(), vec!["credit_manager".into()]);
        assert!(
            RuleBook::new(&registry(), &bad)
                .expect_err("unknown decision")
                .to_string()
                .contains("rules.decisions: unknown decision `release_order`")
        );
        let mut bad = RulesSettings::default();
        bad.decisions
            .insert("release_credit_block".into(), vec!["cashier".into()]);
        assert!(
            RuleBook::new(&registry(), &bad)
                .expect_err("unknown role")
                .to_string()
                .contains("rules.decisions: unknown role `cashier`")
        );
        let mut bad = RulesSettings::default();
        bad.proposals.insert("legal".into(), Vec::new());
        assert!(
            RuleBook::new(&registry(), &bad)
                .expect_err("unknown specialist")
                .to_string()
                .contains("unknown specialist `legal`")
        );
    }

    #[test]
    fn release_credit_block_is_seeded_for_credit_managers_and_configurable() {
        let seed = RuleBook::new(&registry(), &RulesSettings::default()).expect("seed");
        assert!(seed.may_release_credit_block(BusinessRole::CreditManager));
        assert!(!seed.may_release_credit_block(BusinessRole::ArClerk));
        let credit = seed
            .offered(&registry())
            .into_iter()
            .find(|o| o.skill == "credit")
            .expect("credit");
        assert_eq!(
            credit.decisions,
            vec![OfferedDecision {
                decision: Decision::ReleaseCreditBlock,
                roles: vec![BusinessRole::CreditManager]
            }]
        );

        let mut settings = RulesSettings::default();
        settings
            .decisions
            .insert("release_credit_block".into(), Vec::new());
        let book = RuleBook::new(&registry(), &settings).expect("valid");
        assert!(!book.may_release_credit_block(BusinessRole::CreditManager));
        assert!(book.deciders(Decision::ReleaseCreditBlock).is_empty());

        // A decider must also be a role that may approve the credit review.
        let mut settings = RulesSettings::default();
        settings.decisions.insert(
            "release_credit_block".into(),
            vec!["ar_clerk".into(), "credit_manager".into()],
        );
        let book = RuleBook::new(&registry(), &settings).expect("valid");
        assert_eq!(
            book.deciders(Decision::ReleaseCreditBlock),
            vec![BusinessRole::CreditManager]
        );
    }
}
