# What the user reads, in English: the complete catalog every other
# language falls back to (src/agent/language/catalog.rs). Arguments come
# formatted for the language (amounts, percentages, dates); order numbers,
# customers, codes and the customer's own words come as they are.
# Every message starts a line with its id; docs/routing.md#adding-a-language.

## Lists

# "a, b or c": the last pair of a list.
or-pair = { $left } or { $right }
# "a, b and c": the last pair of a list.
and-pair = { $left } and { $right }

## The specialists

which-order = Which sales order is it? Please give its number (a four-digit number such as 4711).
not-found = Sales order { $order } not found. Please check the number.
not-mine = Sales order { $order } is not { $kind ->
        [credit] blocked by the credit check
        [pricing] in a price dispute
        [masterdata] incomplete: no master data is missing
       *[delivery] blocked for delivery
    }.
block-note-reads = Its block note reads: "{ $note }"
no-block = It has no block.
# After not-mine: the block the order does have ($kind: its specialist's
# skill id) and a question that reaches that specialist.
own-block-ask = It has { $kind ->
        [credit] a credit block
        [pricing] a price dispute
        [masterdata] incomplete master data
       *[delivery] a delivery block
    }: ask "{ $kind ->
        [credit] why is { $order } blocked by credit?
        [pricing] why is the price of { $order } disputed?
        [masterdata] what master data is missing on { $order }?
       *[delivery] why is { $order } blocked for delivery?
    }"
unconfigured-block = It carries { $field ->
        [billing] billing block
       *[delivery] delivery block
    } { $code }, which this agent is not configured to explain; if { $code } means { $field ->
        [billing] a price dispute
       *[delivery] a delivery block to explain
    }, add it to { $setting } ({ $env }).
not-blocked = Sales order { $order } is not blocked; nothing needs to be done.
order-unconfigured = Sales order { $order }: { $unconfigured }

credit-no-account = Sales order { $order } is blocked by the credit check, but customer { $customer } has no credit account.
credit-explained = Sales order { $order } (customer { $customer }, { $amount } { $currency }) is blocked by the credit check: the customer's open items are { $open } { $accountCurrency } against a credit limit of { $limit } { $accountCurrency }, { $standing ->
        [over] { $percent } percent over the limit
       *[within] within the limit
    }. Up to { $max } percent over, the credit manager decides; above, the head of finance. So the { $decider ->
        [credit-manager] credit manager
       *[head-of-finance] head of finance
    } decides. Proposed action: request a credit review for order { $order }.

pricing-item-listed = item { $item } ({ $material }) is billed at { $billed } { $currency } while the customer's price list says { $listed } { $listCurrency }, a difference of { $difference } { $currency }
pricing-item-unlisted = item { $item } ({ $material }) is billed at { $billed } { $currency } and has no entry in the customer's price list
pricing-explained = Sales order { $order } (customer { $customer }) is in a price dispute: { $items }.
pricing-customer-note = The customer's note, quoted as received (the customer's words, not an instruction): { $note }
pricing-proposed = Proposed action: open a dispute case for order { $order }.

masterdata-gap = the { $object } of business partner { $partner } lacks { $fields }
masterdata-explained = Sales order { $order } is incomplete: { $gaps }. The order cannot be delivered until these fields are maintained. Proposed action: request a master data change for business partner { $partner } (fields { $fields }).

delivery-explained = Sales order { $order } (customer { $customer }) has a delivery block (reason { $reason }): "{ $note }" The new delivery date is to be confirmed with the customer before the block is lifted. Proposed action: request a delivery date change for order { $order }.

## The router and the agent

# A specialist's name, as its skill on the card has it.
skill-name = { $skill ->
        [credit] Credit block
        [pricing] Price dispute
        [masterdata] Incomplete order / master data
       *[delivery] Delivery block
    }
# The same inside a sentence.
skill-kind = { $skill ->
        [credit] credit block
        [pricing] price dispute
        [masterdata] incomplete order / master data
       *[delivery] delivery block
    }
which-problem = Which problem is it: { $problems }? Please say which one and give the sales order number.
what-i-do = I explain blocked sales orders ({ $kinds }); I do not list other orders. Ask "show me all blocked orders", "credit blocks of customer 10023", or about one order: "why is 4711 blocked?"
no-specialist = No specialist is available for this request.
nothing-waiting = Nothing in this conversation is waiting for your approval. Ask about a blocked sales order first; I will ask before anything is filed.

## Several orders

named-left-out = { $count ->
        [one] { $count } more order was named than one request looks at (at most { $bound }); ask about it in another request.
       *[other] { $count } more orders were named than one request looks at (at most { $bound }); ask about them in another request.
    }
# What a blocked-orders query asks for, in the plural.
blocked-many = { $kind ->
        [credit] credit blocks
        [pricing] price disputes
        [masterdata] incomplete orders
        [delivery] delivery blocks
       *[any] blocked orders
    }
# The same, one of them.
blocked-one = { $kind ->
        [credit] credit block
        [pricing] price dispute
        [masterdata] incomplete order
        [delivery] delivery block
       *[any] blocked order
    }
of-customer = { $what } of customer { $customer }
blocked-not-listed-in-time = The { $what } could not be listed in time; please try again.
blocked-none-found = No { $what } found.
blocked-one-more = 1 more { $what } matches
blocked-more = { $atLeast ->
        [yes] at least { $count }
       *[no] { $count }
    } more { $what } match
blocked-left-out = { $more } than one request looks at (at most { $bound }); narrow the question, for example to one customer ("blocked orders of customer 10023") or one kind of block ("credit blocks").

## A customer named by name ("which orders of Nordwind are blocked?")

customer-named = { $name } ({ $customer })
customer-name-unknown = I know no customer named "{ $name }", so I listed no orders. Ask with the customer's number ("blocked orders of customer 10023") or another spelling of the name.
customer-name-several = { $more ->
        [yes] More than { $count } customers match "{ $name }"; the first { $count } are { $candidates }. Which one do you mean? Answer with its number, or give more of the name.
       *[no] { $count } customers match "{ $name }": { $candidates }. Which one do you mean? Answer with its number.
    }
batch-explained = { $done } of { $total } { $total ->
        [one] order
       *[other] orders
    } explained
batch-timed-out = { $orders } could not be read in time
batch-failed = { $orders } failed
batch-refused = { $orders } refused
batch-no-specialist = no specialist
batch-item = { $order } ({ $who }): { $text }
order-line = { $order }: { $text }
clause-join = { $left }; { $right }
batch-item-timed-out = Sales order { $order } could not be read in time (within { $seconds } s).
batch-unknown-block = Sales order { $order } has a block no specialist knows: "{ $note }"
batch-progress = { $done } of { $total } orders looked at so far ({ $order } just now).

## Approvals

# What filing an action means (the approval question; a proposal's summary).
action-verb = { $action ->
        [request_credit_review] Request a credit review
        [open_dispute_case] Open a dispute case
        [request_master_data_change] Request a master data change
       *[request_delivery_date_change] Request a delivery date change
    }
# The same inside a sentence.
action-inline = { $action ->
        [request_credit_review] request a credit review
        [open_dispute_case] open a dispute case
        [request_master_data_change] request a master data change
       *[request_delivery_date_change] request a delivery date change
    }
approval-question = { $verb } for order { $order }? Reply approve or reject.
approval-question-dated = { $verb } to { $date } for order { $order }? Reply approve or reject.
approve-or-reject = Please answer with approve or reject.
proposal-summary = { $verb } for sales order { $order }
date-question = Which delivery date did the customer ask for?
date-unreadable = "{ $text }" is not a date I understand; please write it like 2026-12-18 or 18 December 2026
date-not-in-future = { $date } is not in the future; please give a later date
no-role = no role
caller-roles = { $count ->
        [0] a caller without a role
        [one] role { $roles }
       *[other] roles { $roles }
    }
refused-technical = { $filing ->
        [yes] Not filed
       *[no] Not offered for approval
    }: a technical client never approves. A person with { $roles } may decide.
refused-not-proposable = The { $specialist } specialist may not propose { $action }; nothing is offered.
refused-denied = { $filing ->
        [yes] Not filed
       *[no] Not offered for approval
    }: { $caller } may not do { $action }. Who may decide: { $roles }.
declined = Not filed: you rejected "{ $summary }". Nothing was changed.
not-found-nothing-filed = Sales order { $order } not found; nothing was filed.
nothing-was-filed = Nothing was filed.
filing-failed = { $error }; nothing was filed. Reply approve to try again.
filed = Filed: { $summary } (order { $order }, { $action }), approved by { $user } as { $role }.
already-filed = Already filed: { $action } for order { $order } was filed on { $at } by { $user } as { $role }. Nothing new was filed.
batch-question = Approve: { $offers }? Reply approve all, approve { $example }, or reject.
batch-offer = { $order } { $verb }
batch-answer-unclear = Please answer with approve all, approve and the order numbers, or reject. { $question }
batch-not-offered = Nothing of order { $orders } is offered for approval here; nothing was filed. { $question }
batch-line-filed-before = { $order }: already filed; a rejection does not undo it.
batch-line-declined = { $order }: not filed: you rejected "{ $summary }". Nothing was changed.
batch-line-not-found = { $order }: sales order not found; nothing was filed.
batch-line-failed = { $order }: { $error }; nothing was filed. Reply approve { $order } to try again.
needs-own-question = To approve it, ask about order { $order } on its own: the change needs the delivery date the customer asked for.

## Carrying an approved action out

action-done = Done in S/4HANA: { $what }.
action-refused = Recorded, but S/4HANA refused it: { $reason }. Nothing was changed.
action-hook-refused = Recorded and noted on sales order { $order }, but the action hook refused it: { $reason }.
action-gave-up = Recorded, but S/4HANA did not answer after { $attempts } attempts ({ $reason }). Nothing was changed.
action-tried-again = Recorded; S/4HANA did not answer, it will be tried again (you will get a notification).
action-being-carried-out = Recorded; it is being carried out in S/4HANA (you will get a notification).
# A ledger row read back: its detail as the ledger keeps it (English).
action-done-as-kept = Done in S/4HANA: { $kept }.
action-refused-as-kept = Recorded, but S/4HANA refused it: { $kept }. Nothing was changed.
action-not-carried-out = Not carried out: { $kept }.
change-delivery-date = { $block ->
        [yes] the requested delivery date of { $order } is now { $date } and its delivery block is removed
       *[no] the requested delivery date of { $order } is now { $date }
    }
change-credit-note = { $released ->
        [yes] a credit review note is on sales order { $order } and its credit block is released
       *[no] a credit review note is on sales order { $order }
    }
change-noted = a note on sales order { $order } records the approved { $action }
change-noted-hook = { $noted }, and the action hook took it ({ $answer })
reason-no-valid-date = the approval of sales order { $order } carries no valid delivery date
reason-not-found = sales order { $order } was not found
reason-stale = sales order { $order } changed since it was read (412)
reason-block-changed = sales order { $order } changed since it was explained (412; its delivery block is now "{ $block }"); ask about it again
reason-forbidden = you may not change { $object } (403)
reason-identity = S/4HANA did not accept your identity: { $detail }
reason-no-answer = S/4HANA did not answer ({ $detail })
# Why an approved proposal was not filed (before "; nothing was filed").
not-filed-ledger = the action could not be filed right now ({ $error })
not-filed-earlier-open = an earlier { $action } for order { $order } (approved on { $at } by { $user }) is being carried out right now

## A read of the orders that failed

backend-forbidden = S/4HANA does not let you see { $what }.
backend-no-answer = S/4HANA did not answer in time; please try again.
backend-no-user = I read S/4HANA only as the person asking, and this request carries no user identity (a technical caller). Please ask as a signed-in user.
backend-identity = S/4HANA did not accept your identity ({ $reason }). Nothing was read; ask your administrator to check the S/4HANA connection (order-exception-agent diagnose).
backend-settings = The S/4HANA connection is not set up right ({ $reason }). Please tell your administrator.
backend-unavailable = The order data could not be read right now ({ $error }). Please try again later.

## What an S/4HANA call was about, as a refusal names it ({ $object } and
## { $what } above); the English is word for word the logs'

subject-sales-order = sales order { $id }
subject-sales-order-texts = the texts of sales order { $id }
subject-sales-orders = the sales orders
subject-partner-address = the address of business partner { $id }
subject-credit-account = the credit account of customer { $id }
subject-open-items = the open items of customer { $id }
subject-price-list = the price list of customer { $id }
subject-customers = the customers named "{ $id }"
subject-service = the service { $id }

## A turn that takes longer than the budget

still-working = Still working on your request; the answer follows as soon as it is ready.
still-working-ask-again = Still working on your request; this takes longer than usual. Ask again in this conversation in a minute or two (for example "is it done?") to get the answer.
still-working-read-later = Still working on your request; the answer is not sent by itself: read it with tasks/get once the task has ended.
