//! The approval flow's state: the rule book, the ledger, the order source
//! and how filed actions are carried out ([`Approvals`]), and how it is
//! built. The single-order flow (`mod.rs`), the batch flow (`batch`) and
//! filing (`filing`) each add its methods, so it sits below all three.

use crate::agent::execution::Executions;
use crate::agent::ledger::ActionLedger;
use crate::agent::rulebook::RuleBook;
use crate::backend::OrderSource;
use std::sync::Arc;

pub struct Approvals {
    pub(super) rules: RuleBook,
    pub(super) ledger: Arc<dyn ActionLedger>,
    pub(super) orders: Arc<dyn OrderSource>,
    pub(super) executions: Arc<Executions>,
}

impl Approvals {
    /// Carry filed actions out with `executions` (default: the ledger only).
    pub fn with_executions(mut self, executions: Arc<Executions>) -> Self {
        self.executions = executions;
        self
    }

    pub fn new(
        rules: RuleBook,
        ledger: Arc<dyn ActionLedger>,
        orders: Arc<dyn OrderSource>,
    ) -> Self {
        Approvals {
            rules,
            executions: Arc::new(Executions::ledger_only(Arc::clone(&ledger))),
            ledger,
            orders,
        }
    }

    /// The rule book in force.
    pub fn rules(&self) -> &RuleBook {
        &self.rules
    }
}
