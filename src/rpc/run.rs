//! A decoded call carried out: the one place `rpc/` calls the task engine,
//! for either wire version, with the call's rules.

use super::call::{Action, Call, ListTasks, Outcome};
use super::context::RpcContext;
use super::errors::CallError;
use crate::tasks::{CallContext, EngineError, TaskPage};

/// Carry `call` out for the caller of `context`.
pub(super) async fn run<'a>(
    context: &RpcContext<'a>,
    call: Call,
) -> Result<Outcome<'a>, CallError> {
    let Call { action, rules } = call;
    let engine = context.engine;
    let with_rules;
    let on = if context.call.rules == rules.engine {
        &context.call
    } else {
        with_rules = CallContext {
            rules: rules.engine,
            ..context.call.clone()
        };
        &with_rules
    };
    Ok(match action {
        Action::Send(params) => Outcome::Sent(engine.send_message(*params, on).await?),
        Action::Stream(params) => {
            Outcome::Stream(Box::new(engine.stream_message(*params, on).await?))
        }
        Action::Get {
            task_id,
            history_length,
        } => Outcome::Task(Box::new(
            engine.get_task(&task_id, history_length, on).await?,
        )),
        Action::List(list) => list_tasks(context, *list).await?,
        Action::Cancel { task_id } => {
            Outcome::Task(Box::new(engine.cancel_task(&task_id, on).await?))
        }
        Action::Subscribe { task_id } if rules.follow_until_terminal => {
            let stream = engine.follow(&task_id, on).await?;
            if let Some(task) = &stream.first
                && task.status.state.is_terminal()
            {
                return Err(CallError::TaskIsTerminal {
                    task_id: task.id.clone(),
                    state: task.status.state,
                });
            }
            Outcome::Stream(Box::new(stream))
        }
        Action::Subscribe { task_id } => {
            Outcome::Stream(Box::new(engine.resubscribe(&task_id, on).await?))
        }
        Action::SetPushConfig(config) => {
            Outcome::PushConfig(Box::new(engine.set_push_config(*config, on).await?))
        }
        Action::GetPushConfig { task_id, config_id } => Outcome::PushConfig(Box::new(
            engine
                .get_push_config(&task_id, config_id.as_deref(), on)
                .await?,
        )),
        Action::ListPushConfigs { task_id } => {
            Outcome::PushConfigs(engine.list_push_configs(&task_id, on).await?)
        }
        Action::DeletePushConfig { task_id, config_id } => {
            match engine.delete_push_config(&task_id, &config_id, on).await {
                Ok(()) => Outcome::Deleted,
                Err(EngineError::PushConfigNotFound { .. }) if rules.repeated_delete_succeeds => {
                    Outcome::Deleted
                }
                Err(error) => return Err(error.into()),
            }
        }
        Action::ExtendedCard => match (context.principal, context.extended_card) {
            (Some(_), Some(card)) => Outcome::ExtendedCard(card),
            _ => return Err(CallError::ExtendedCardNotConfigured),
        },
    })
}

/// The caller's tasks (all of them with authentication off), filtered and
/// paged, each shown with as much history and as many artifacts as asked.
async fn list_tasks<'a>(
    context: &RpcContext<'a>,
    list: ListTasks,
) -> Result<Outcome<'a>, CallError> {
    let page = context
        .engine
        .list_tasks(&list.query(context.call.scope.clone()))
        .await?;
    let tasks = page
        .tasks
        .into_iter()
        .map(|task| {
            let mut task = task.with_history_limit(list.history_limit);
            if !list.include_artifacts {
                task.artifacts = None;
            }
            task
        })
        .collect();
    Ok(Outcome::Tasks {
        page: TaskPage { tasks, ..page },
        page_size: list.page_size,
    })
}
