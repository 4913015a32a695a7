# Was der Benutzer liest, auf Deutsch: vollständig, jede Nachricht des
# englischen Katalogs mit denselben Variablen (src/agent/language/catalog.rs
# prüft es). Beträge, Prozente und Daten kommen deutsch formatiert an
# (50.700,00; 1,4; 18.12.2026); Auftragsnummern, Kunden, Codes und die
# Notiz des Kunden so, wie sie sind.

## Listen

or-pair = { $left } oder { $right }
and-pair = { $left } und { $right }

## Die Spezialisten

which-order = Um welchen Kundenauftrag geht es? Bitte nennen Sie seine Nummer (eine vierstellige Nummer wie 4711).
not-found = Kundenauftrag { $order } wurde nicht gefunden. Bitte prüfen Sie die Nummer.
not-mine = Kundenauftrag { $order } ist { $kind ->
        [credit] nicht durch die Kreditprüfung gesperrt
        [pricing] nicht in einem Preisstreit
        [masterdata] nicht unvollständig: es fehlen keine Stammdaten
       *[delivery] nicht für die Lieferung gesperrt
    }.
block-note-reads = Seine Sperrnotiz lautet: "{ $note }"
no-block = Er hat keine Sperre.
own-block-ask = Er hat { $kind ->
        [credit] eine Kreditsperre
        [pricing] einen Preisstreit
        [masterdata] unvollständige Stammdaten
       *[delivery] eine Liefersperre
    }: Fragen Sie "{ $kind ->
        [credit] warum ist { $order } wegen Kredit gesperrt?
        [pricing] warum ist der Preis von { $order } strittig?
        [masterdata] welche Stammdaten fehlen bei { $order }?
       *[delivery] warum hat { $order } eine Liefersperre?
    }"
unconfigured-block = Er trägt { $field ->
        [billing] die Fakturasperre
       *[delivery] die Liefersperre
    } { $code }, die dieser Agent nicht erklären kann, weil sie nicht konfiguriert ist; wenn { $code } { $field ->
        [billing] einen Preisstreit
       *[delivery] eine zu erklärende Liefersperre
    } bedeutet, tragen Sie den Code in { $setting } ({ $env }) ein.
not-blocked = Kundenauftrag { $order } ist nicht gesperrt; es ist nichts zu tun.
order-unconfigured = Kundenauftrag { $order }: { $unconfigured }

credit-no-account = Kundenauftrag { $order } ist durch die Kreditprüfung gesperrt, aber Kunde { $customer } hat kein Kreditkonto.
credit-explained = Kundenauftrag { $order } (Kunde { $customer }, { $amount } { $currency }) ist durch die Kreditprüfung gesperrt: Die offenen Posten des Kunden betragen { $open } { $accountCurrency } bei einem Kreditlimit von { $limit } { $accountCurrency }, { $standing ->
        [over] { $percent } Prozent über dem Limit
       *[within] innerhalb des Limits
    }. Bis { $max } Prozent darüber entscheidet der Kreditmanager, darüber die Finanzleitung. Hier entscheidet also { $decider ->
        [credit-manager] der Kreditmanager
       *[head-of-finance] die Finanzleitung
    }. Vorgeschlagene Aktion: eine Kreditprüfung für Auftrag { $order } anfordern.

pricing-item-listed = Position { $item } ({ $material }) ist mit { $billed } { $currency } fakturiert, laut Preisliste des Kunden aber { $listed } { $listCurrency }, eine Differenz von { $difference } { $currency }
pricing-item-unlisted = Position { $item } ({ $material }) ist mit { $billed } { $currency } fakturiert und hat keinen Eintrag in der Preisliste des Kunden
pricing-explained = Kundenauftrag { $order } (Kunde { $customer }) ist in einem Preisstreit: { $items }.
pricing-customer-note = Die Notiz des Kunden, wörtlich wie erhalten (die Worte des Kunden, keine Anweisung): { $note }
pricing-proposed = Vorgeschlagene Aktion: einen Streitfall für Auftrag { $order } eröffnen.

masterdata-gap = bei { $object } des Geschäftspartners { $partner } fehlt { $fields }
masterdata-explained = Kundenauftrag { $order } ist unvollständig: { $gaps }. Der Auftrag kann erst geliefert werden, wenn diese Felder gepflegt sind. Vorgeschlagene Aktion: eine Stammdatenänderung für Geschäftspartner { $partner } anfordern (Felder { $fields }).

delivery-explained = Kundenauftrag { $order } (Kunde { $customer }) hat eine Liefersperre (Grund { $reason }): "{ $note }" Der neue Liefertermin ist mit dem Kunden zu bestätigen, bevor die Sperre aufgehoben wird. Vorgeschlagene Aktion: eine Änderung des Liefertermins für Auftrag { $order } anfordern.

## Der Router und der Agent

skill-name = { $skill ->
        [credit] Kreditsperre
        [pricing] Preisstreit
        [masterdata] Unvollständiger Auftrag / Stammdaten
       *[delivery] Liefersperre
    }
skill-kind = { $skill ->
        [credit] Kreditsperre
        [pricing] Preisstreit
        [masterdata] unvollständiger Auftrag / Stammdaten
       *[delivery] Liefersperre
    }
which-problem = Um welches Problem geht es: { $problems }? Bitte sagen Sie, welches, und nennen Sie die Nummer des Kundenauftrags.
what-i-do = Ich erkläre gesperrte Kundenaufträge ({ $kinds }); andere Aufträge liste ich nicht auf. Fragen Sie "zeige alle gesperrten Aufträge", "Kreditsperren des Kunden 10023" oder nach einem Auftrag: "warum ist 4711 gesperrt?"
no-specialist = Für diese Anfrage ist kein Spezialist verfügbar.
nothing-waiting = In diesem Gespräch wartet nichts auf Ihre Genehmigung. Fragen Sie zuerst nach einem gesperrten Kundenauftrag; ich frage, bevor etwas eingereicht wird.

## Mehrere Aufträge

named-left-out = { $count ->
        [one] { $count } weiterer Auftrag wurde genannt, als eine Anfrage ansieht (höchstens { $bound }); fragen Sie in einer weiteren Anfrage nach ihm.
       *[other] { $count } weitere Aufträge wurden genannt, als eine Anfrage ansieht (höchstens { $bound }); fragen Sie in einer weiteren Anfrage nach ihnen.
    }
blocked-many = { $kind ->
        [credit] Kreditsperren
        [pricing] Preisstreitfälle
        [masterdata] unvollständigen Aufträge
        [delivery] Liefersperren
       *[any] gesperrten Aufträge
    }
blocked-one = { $kind ->
        [credit] Kreditsperre
        [pricing] Preisstreitfall
        [masterdata] unvollständiger Auftrag
        [delivery] Liefersperre
       *[any] gesperrter Auftrag
    }
of-customer = { $what } des Kunden { $customer }
blocked-not-listed-in-time = Die { $what } konnten nicht rechtzeitig aufgelistet werden; bitte versuchen Sie es erneut.
blocked-none-found = Keine { $what } gefunden.
blocked-one-more = 1 weiterer Treffer ({ $what })
blocked-more = { $atLeast ->
        [yes] mindestens { $count }
       *[no] { $count }
    } weitere Treffer ({ $what })
blocked-left-out = { $more }, mehr als eine Anfrage ansieht (höchstens { $bound }); schränken Sie die Frage ein, zum Beispiel auf einen Kunden ("gesperrte Aufträge des Kunden 10023") oder eine Art von Sperre ("Kreditsperren").

## Ein Kunde, beim Namen genannt ("welche Aufträge von Nordwind sind gesperrt?")

customer-named = { $name } ({ $customer })
customer-name-unknown = Ich kenne keinen Kunden namens "{ $name }" und habe daher keine Aufträge aufgelistet. Fragen Sie mit der Kundennummer ("gesperrte Aufträge des Kunden 10023") oder einer anderen Schreibweise des Namens.
customer-name-several = { $more ->
        [yes] Mehr als { $count } Kunden passen zu "{ $name }"; die ersten { $count } sind { $candidates }. Welchen meinen Sie? Antworten Sie mit seiner Nummer oder nennen Sie mehr vom Namen.
       *[no] { $count } Kunden passen zu "{ $name }": { $candidates }. Welchen meinen Sie? Antworten Sie mit seiner Nummer.
    }
batch-explained = { $done } von { $total } { $total ->
        [one] Auftrag
       *[other] Aufträgen
    } erklärt
batch-timed-out = { $orders } konnte nicht rechtzeitig gelesen werden
batch-failed = { $orders } fehlgeschlagen
batch-refused = { $orders } abgelehnt
batch-no-specialist = kein Spezialist
batch-item = { $order } ({ $who }): { $text }
order-line = { $order }: { $text }
clause-join = { $left }; { $right }
batch-item-timed-out = Kundenauftrag { $order } konnte nicht rechtzeitig gelesen werden (innerhalb von { $seconds } s).
batch-unknown-block = Kundenauftrag { $order } hat eine Sperre, die kein Spezialist kennt: "{ $note }"
batch-progress = { $done } von { $total } Aufträgen bisher angesehen ({ $order } gerade eben).

## Genehmigungen

action-verb = { $action ->
        [request_credit_review] Kreditprüfung anfordern
        [open_dispute_case] Streitfall eröffnen
        [request_master_data_change] Stammdatenänderung anfordern
       *[request_delivery_date_change] Änderung des Liefertermins anfordern
    }
action-inline = { $action ->
        [request_credit_review] Kreditprüfung anfordern
        [open_dispute_case] Streitfall eröffnen
        [request_master_data_change] Stammdatenänderung anfordern
       *[request_delivery_date_change] Änderung des Liefertermins anfordern
    }
approval-question = Für Auftrag { $order }: { $verb }? Antworten Sie mit genehmigen oder ablehnen.
approval-question-dated = Für Auftrag { $order }: { $verb } auf { $date }? Antworten Sie mit genehmigen oder ablehnen.
approve-or-reject = Bitte antworten Sie mit genehmigen oder ablehnen.
proposal-summary = { $verb } für Kundenauftrag { $order }
date-question = Welchen Liefertermin hat sich der Kunde gewünscht?
date-unreadable = "{ $text }" ist kein Datum, das ich verstehe; bitte schreiben Sie es wie 18.12.2026 oder 18. Dezember 2026
date-not-in-future = { $date } liegt nicht in der Zukunft; bitte nennen Sie ein späteres Datum
no-role = keine Rolle
caller-roles = { $count ->
        [0] ein Aufrufer ohne Rolle
        [one] die Rolle { $roles }
       *[other] die Rollen { $roles }
    }
refused-technical = { $filing ->
        [yes] Nicht eingereicht
       *[no] Nicht zur Genehmigung angeboten
    }: ein technischer Client genehmigt nie. Eine Person mit { $roles } kann entscheiden.
refused-not-proposable = Der Spezialist { $specialist } darf „{ action-inline }“ nicht vorschlagen; es wird nichts angeboten.
refused-denied = { $filing ->
        [yes] Nicht eingereicht
       *[no] Nicht zur Genehmigung angeboten
    }: { $caller } darf „{ action-inline }“ nicht ausführen. Wer entscheiden darf: { $roles }.
declined = Nicht eingereicht: Sie haben "{ $summary }" abgelehnt. Es wurde nichts geändert.
not-found-nothing-filed = Kundenauftrag { $order } wurde nicht gefunden; es wurde nichts eingereicht.
nothing-was-filed = Es wurde nichts eingereicht.
filing-failed = { $error }; es wurde nichts eingereicht. Antworten Sie mit genehmigen, um es erneut zu versuchen.
filed = Eingereicht: { $summary } (Auftrag { $order }, { $action }), genehmigt von { $user } als { $role }.
already-filed = Bereits eingereicht: { $action } für Auftrag { $order } wurde am { $at } von { $user } als { $role } eingereicht. Es wurde nichts Neues eingereicht.
batch-question = Genehmigen: { $offers }? Antworten Sie mit genehmigen (alle), genehmigen { $example } oder ablehnen.
batch-offer = { $order } { $verb }
batch-answer-unclear = Bitte antworten Sie mit genehmigen (alle), genehmigen und den Auftragsnummern oder ablehnen. { $question }
batch-not-offered = Für Auftrag { $orders } wird hier nichts zur Genehmigung angeboten; es wurde nichts eingereicht. { $question }
batch-line-filed-before = { $order }: bereits eingereicht; eine Ablehnung macht das nicht rückgängig.
batch-line-declined = { $order }: nicht eingereicht: Sie haben "{ $summary }" abgelehnt. Es wurde nichts geändert.
batch-line-not-found = { $order }: Kundenauftrag nicht gefunden; es wurde nichts eingereicht.
batch-line-failed = { $order }: { $error }; es wurde nichts eingereicht. Antworten Sie mit genehmigen { $order }, um es erneut zu versuchen.
needs-own-question = Um sie zu genehmigen, fragen Sie nach Auftrag { $order } allein: die Änderung braucht den Liefertermin, den sich der Kunde gewünscht hat.

## Eine genehmigte Aktion ausführen

action-done = In S/4HANA erledigt: { $what }.
action-refused = Eingereicht, aber S/4HANA hat es abgelehnt: { $reason }. Es wurde nichts geändert.
action-hook-refused = Eingereicht und an Kundenauftrag { $order } vermerkt, aber der Action-Hook hat es abgelehnt: { $reason }.
action-gave-up = Eingereicht, aber S/4HANA hat nach { $attempts } Versuchen nicht geantwortet ({ $reason }). Es wurde nichts geändert.
action-tried-again = Eingereicht; S/4HANA hat nicht geantwortet, es wird erneut versucht (Sie erhalten eine Benachrichtigung).
action-being-carried-out = Eingereicht; es wird gerade in S/4HANA ausgeführt (Sie erhalten eine Benachrichtigung).
# Eine zurückgelesene Zeile des Ledgers: ihr Detail, wie das Ledger es führt (englisch).
action-done-as-kept = In S/4HANA erledigt; im Protokoll steht: „{ $kept }“.
action-refused-as-kept = Eingereicht, aber S/4HANA hat es abgelehnt; im Protokoll steht: „{ $kept }“. Es wurde nichts geändert.
action-not-carried-out = Nicht ausgeführt; im Protokoll steht: „{ $kept }“.
change-delivery-date = { $block ->
        [yes] der Wunschliefertermin von Auftrag { $order } ist jetzt der { $date }, und seine Liefersperre ist aufgehoben
       *[no] der Wunschliefertermin von Auftrag { $order } ist jetzt der { $date }
    }
change-credit-note = { $released ->
        [yes] eine Notiz zur Kreditprüfung steht an Kundenauftrag { $order }, und seine Kreditsperre ist freigegeben
       *[no] eine Notiz zur Kreditprüfung steht an Kundenauftrag { $order }
    }
change-noted = eine Notiz an Kundenauftrag { $order } hält die genehmigte Aktion { $action } fest
change-noted-hook = { $noted }, und der Action-Hook hat sie angenommen ({ $answer })
reason-no-valid-date = die Genehmigung für Kundenauftrag { $order } enthält kein gültiges Lieferdatum
reason-not-found = Kundenauftrag { $order } wurde nicht gefunden
reason-stale = Kundenauftrag { $order } wurde seit dem Lesen geändert (412)
reason-block-changed = Kundenauftrag { $order } wurde seit der Erklärung geändert (412; seine Liefersperre ist jetzt „{ $block }“); bitte fragen Sie noch einmal danach
reason-forbidden = S/4HANA lässt Sie { $object } nicht ändern (403)
reason-identity = S/4HANA hat Ihre Identität nicht akzeptiert: { $detail }
reason-no-answer = S/4HANA hat nicht geantwortet ({ $detail })
# Warum ein genehmigter Vorschlag nicht eingereicht wurde (vor „; es wurde nichts eingereicht“).
not-filed-ledger = die Aktion konnte gerade nicht eingereicht werden ({ $error })
not-filed-earlier-open = eine frühere Anfrage { $action } für Auftrag { $order } (genehmigt am { $at } von { $user }) wird gerade ausgeführt

## Ein fehlgeschlagenes Lesen der Aufträge

backend-forbidden = S/4HANA lässt Sie { $what } nicht sehen.
backend-no-answer = S/4HANA hat nicht rechtzeitig geantwortet; bitte versuchen Sie es erneut.
backend-no-user = Ich lese S/4HANA nur als die fragende Person, und diese Anfrage trägt keine Benutzeridentität (ein technischer Aufrufer). Bitte fragen Sie als angemeldeter Benutzer.
backend-identity = S/4HANA hat Ihre Identität nicht akzeptiert ({ $reason }). Es wurde nichts gelesen; bitten Sie Ihre Administration, die S/4HANA-Verbindung zu prüfen (order-exception-agent diagnose).
backend-settings = Die S/4HANA-Verbindung ist nicht richtig eingerichtet ({ $reason }). Bitte wenden Sie sich an Ihre Administration.
backend-unavailable = Die Auftragsdaten konnten gerade nicht gelesen werden ({ $error }). Bitte versuchen Sie es später erneut.

## Worum es bei einem Aufruf von S/4HANA ging, wie eine Ablehnung es nennt
## (im Akkusativ: „lässt Sie … nicht sehen/ändern“)

subject-sales-order = den Kundenauftrag { $id }
subject-sales-order-texts = die Texte von Kundenauftrag { $id }
subject-sales-orders = die Kundenaufträge
subject-partner-address = die Adresse von Geschäftspartner { $id }
subject-credit-account = das Kreditkonto von Kunde { $id }
subject-open-items = die offenen Posten von Kunde { $id }
subject-price-list = die Preisliste von Kunde { $id }
subject-customers = die Kunden namens "{ $id }"
subject-service = den Service { $id }

## Eine Anfrage, die länger dauert als das Zeitbudget

still-working = Ihre Anfrage wird noch bearbeitet; die Antwort folgt, sobald sie fertig ist.
still-working-ask-again = Ihre Anfrage wird noch bearbeitet; das dauert länger als üblich. Fragen Sie in ein bis zwei Minuten in diesem Gespräch noch einmal (zum Beispiel "ist es fertig?"), um die Antwort zu erhalten.
still-working-read-later = Ihre Anfrage wird noch bearbeitet; die Antwort wird nicht von selbst gesendet: lesen Sie sie mit tasks/get, sobald die Aufgabe beendet ist.
