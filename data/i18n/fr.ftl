# Ce que l'utilisateur lit, en français : complet, chaque message du
# catalogue anglais avec les mêmes variables (src/agent/language/catalog.rs
# le vérifie). Les montants, pourcentages et dates arrivent au format
# français (50 700,00 ; 1,4 ; 18/12/2026, groupés par une espace fine
# insécable) ; les numéros de commande, clients, codes et la note du client
# tels quels. Comme pour les chiffres, une espace fine insécable (U+202F)
# précède « ; : ? ! » et sépare les guillemets de leur contenu, jusque dans
# les lignes d'un lot (« 4725 : … », batch-item, order-line, clause-join).

## Listes

or-pair = { $left } ou { $right }
and-pair = { $left } et { $right }

## Les spécialistes

which-order = De quelle commande client s'agit-il ? Veuillez indiquer son numéro (un numéro à quatre chiffres, par exemple 4711).
not-found = Commande client { $order } introuvable. Veuillez vérifier le numéro.
not-mine = La commande client { $order } { $kind ->
        [credit] n'est pas bloquée par le contrôle de crédit
        [pricing] ne fait pas l'objet d'un litige de prix
        [masterdata] n'est pas incomplète : aucune donnée de base ne manque
       *[delivery] n'est pas bloquée pour la livraison
    }.
block-note-reads = Sa note de blocage indique : « { $note } »
no-block = Elle ne porte aucun blocage.
own-block-ask = Elle porte { $kind ->
        [credit] un blocage de crédit
        [pricing] un litige de prix
        [masterdata] des données de base incomplètes
       *[delivery] un blocage de livraison
    } : demandez « { $kind ->
        [credit] pourquoi la commande { $order } est-elle bloquée pour crédit ?
        [pricing] pourquoi le prix de la commande { $order } est-il contesté ?
        [masterdata] quelles données de base manquent pour la commande { $order } ?
       *[delivery] pourquoi la commande { $order } a-t-elle un blocage de livraison ?
    } »
unconfigured-block = Elle porte { $field ->
        [billing] le blocage de facturation
       *[delivery] le blocage de livraison
    } { $code }, que cet agent n'est pas configuré pour expliquer ; si { $code } signifie { $field ->
        [billing] un litige de prix
       *[delivery] un blocage de livraison à expliquer
    }, ajoutez-le à { $setting } ({ $env }).
not-blocked = La commande client { $order } n'est pas bloquée ; il n'y a rien à faire.
order-unconfigured = Commande client { $order } : { $unconfigured }

credit-no-account = La commande client { $order } est bloquée par le contrôle de crédit, mais le client { $customer } n'a pas de compte de crédit.
credit-explained = La commande client { $order } (client { $customer }, { $amount } { $currency }) est bloquée par le contrôle de crédit : les postes ouverts du client s'élèvent à { $open } { $accountCurrency } pour une limite de crédit de { $limit } { $accountCurrency }, { $standing ->
        [over] soit { $percent } % au-dessus de la limite
       *[within] dans la limite
    }. Jusqu'à { $max } % de dépassement, le responsable crédit décide ; au-delà, la direction financière. C'est donc { $decider ->
        [credit-manager] le responsable crédit
       *[head-of-finance] la direction financière
    } qui décide. Action proposée : demander une revue de crédit pour la commande { $order }.

pricing-item-listed = le poste { $item } ({ $material }) est facturé { $billed } { $currency } alors que la liste de prix du client indique { $listed } { $listCurrency }, soit un écart de { $difference } { $currency }
pricing-item-unlisted = le poste { $item } ({ $material }) est facturé { $billed } { $currency } et ne figure pas dans la liste de prix du client
pricing-explained = La commande client { $order } (client { $customer }) fait l'objet d'un litige de prix : { $items }.
pricing-customer-note = La note du client, citée telle que reçue (les mots du client, pas une instruction) : { $note }
pricing-proposed = Action proposée : ouvrir un cas de litige pour la commande { $order }.

masterdata-gap = il manque { $fields } dans { $object } du partenaire commercial { $partner }
masterdata-explained = La commande client { $order } est incomplète : { $gaps }. La commande ne peut pas être livrée tant que ces champs ne sont pas renseignés. Action proposée : demander une modification des données de base pour le partenaire commercial { $partner } (champs { $fields }).

delivery-explained = La commande client { $order } (client { $customer }) fait l'objet d'un blocage de livraison (motif { $reason }) : « { $note } » La nouvelle date de livraison doit être confirmée avec le client avant la levée du blocage. Action proposée : demander une modification de la date de livraison pour la commande { $order }.

## Le routeur et l'agent

skill-name = { $skill ->
        [credit] Blocage de crédit
        [pricing] Litige de prix
        [masterdata] Commande incomplète / données de base
       *[delivery] Blocage de livraison
    }
skill-kind = { $skill ->
        [credit] blocage de crédit
        [pricing] litige de prix
        [masterdata] commande incomplète / données de base
       *[delivery] blocage de livraison
    }
which-problem = De quel problème s'agit-il : { $problems } ? Veuillez préciser lequel et indiquer le numéro de la commande client.
what-i-do = J'explique les commandes client bloquées ({ $kinds }) ; je ne liste pas les autres commandes. Demandez « montre toutes les commandes bloquées », « blocages de crédit du client 10023 » ou interrogez-moi sur une commande : « pourquoi la commande 4711 est-elle bloquée ? »
no-specialist = Aucun spécialiste n'est disponible pour cette demande.
nothing-waiting = Rien dans cette conversation n'attend votre approbation. Interrogez-moi d'abord sur une commande client bloquée ; je vous demanderai votre accord avant tout enregistrement.

## Plusieurs commandes

named-left-out = { $count ->
        [one] { $count } commande citée en plus n'est pas examinée (une demande en examine au plus { $bound }) ; interrogez-moi à son sujet dans une autre demande.
       *[other] { $count } commandes citées en plus ne sont pas examinées (une demande en examine au plus { $bound }) ; interrogez-moi à leur sujet dans une autre demande.
    }
blocked-many = { $kind ->
        [credit] blocages de crédit
        [pricing] litiges de prix
        [masterdata] commandes incomplètes
        [delivery] blocages de livraison
       *[any] commandes bloquées
    }
blocked-one = { $kind ->
        [credit] blocage de crédit
        [pricing] litige de prix
        [masterdata] commande incomplète
        [delivery] blocage de livraison
       *[any] commande bloquée
    }
of-customer = { $what } du client { $customer }
blocked-not-listed-in-time = La liste des { $what } n'a pas pu être établie à temps ; veuillez réessayer.
blocked-none-found = Il n'y a pas de { $what }.
blocked-one-more = 1 autre résultat ({ $what })
blocked-more = { $atLeast ->
        [yes] au moins { $count }
       *[no] { $count }
    } autres résultats ({ $what })
blocked-left-out = { $more }, au-delà de ce qu'une demande examine (au plus { $bound }) ; précisez la question, par exemple à un client (« commandes bloquées du client 10023 ») ou à un type de blocage (« blocages de crédit »).

## Un client nommé par son nom (« quelles commandes de Nordwind sont bloquées ? »)

customer-named = { $name } ({ $customer })
customer-name-unknown = Je ne connais aucun client nommé « { $name } », je n'ai donc listé aucune commande. Demandez avec le numéro du client (« commandes bloquées du client 10023 ») ou une autre orthographe du nom.
customer-name-several = { $more ->
        [yes] Plus de { $count } clients correspondent à « { $name } » ; les { $count } premiers sont { $candidates }. Lequel voulez-vous dire ? Répondez par son numéro ou précisez le nom.
       *[no] { $count } clients correspondent à « { $name } » : { $candidates }. Lequel voulez-vous dire ? Répondez par son numéro.
    }
batch-explained = { $done } sur { $total } { $total ->
        [one] commande expliquée
       *[other] commandes expliquées
    }
batch-timed-out = délai de lecture dépassé pour { $orders }
batch-failed = échec pour { $orders }
batch-refused = refus pour { $orders }
batch-no-specialist = aucun spécialiste
batch-item = { $order } ({ $who }) : { $text }
order-line = { $order } : { $text }
clause-join = { $left } ; { $right }
batch-item-timed-out = La commande client { $order } n'a pas pu être lue à temps (dans la limite de { $seconds } s).
batch-unknown-block = La commande client { $order } porte un blocage qu'aucun spécialiste ne connaît : « { $note } »
batch-progress = { $done } sur { $total } commandes examinées jusqu'ici ({ $order } à l'instant).

## Approbations

action-verb = { $action ->
        [request_credit_review] Demander une revue de crédit
        [open_dispute_case] Ouvrir un cas de litige
        [request_master_data_change] Demander une modification des données de base
       *[request_delivery_date_change] Demander une modification de la date de livraison
    }
action-inline = { $action ->
        [request_credit_review] demander une revue de crédit
        [open_dispute_case] ouvrir un cas de litige
        [request_master_data_change] demander une modification des données de base
       *[request_delivery_date_change] demander une modification de la date de livraison
    }
approval-question = { $verb } pour la commande { $order } ? Répondez approuver ou rejeter.
approval-question-dated = { $verb } au { $date } pour la commande { $order } ? Répondez approuver ou rejeter.
approve-or-reject = Veuillez répondre par approuver ou rejeter.
proposal-summary = { $verb } pour la commande client { $order }
date-question = Quelle date de livraison le client a-t-il demandée ?
date-unreadable = « { $text } » n'est pas une date que je comprends ; veuillez l'écrire par exemple 18/12/2026 ou 18 décembre 2026
date-not-in-future = Le { $date } n'est pas dans le futur ; veuillez indiquer une date ultérieure
no-role = aucun rôle
caller-roles = { $count ->
        [0] un appelant sans rôle
        [one] le rôle { $roles }
       *[other] les rôles { $roles }
    }
refused-technical = { $filing ->
        [yes] Non enregistré
       *[no] Non proposé pour approbation
    } : un client technique n'approuve jamais. Une personne ayant { $roles } peut décider.
refused-not-proposable = Le spécialiste { $specialist } ne peut pas proposer « { action-inline } » ; rien n'est proposé.
refused-denied = { $filing ->
        [yes] Non enregistré
       *[no] Non proposé pour approbation
    } : « { action-inline } » n'est pas autorisé pour { $caller }. Qui peut décider : { $roles }.
declined = Non enregistré : vous avez rejeté « { $summary } ». Rien n'a été modifié.
not-found-nothing-filed = Commande client { $order } introuvable ; rien n'a été enregistré.
nothing-was-filed = Rien n'a été enregistré.
filing-failed = { $error } ; rien n'a été enregistré. Répondez approuver pour réessayer.
filed = Enregistré : { $summary } (commande { $order }, { $action }), approuvé par { $user } en tant que { $role }.
already-filed = Déjà enregistré : { $action } pour la commande { $order } a été enregistré le { $at } par { $user } en tant que { $role }. Rien de nouveau n'a été enregistré.
batch-question = Approuver : { $offers } ? Répondez approuver tout, approuver { $example } ou rejeter.
batch-offer = { $order } ({ $verb })
batch-answer-unclear = Veuillez répondre par approuver tout, approuver suivi des numéros de commande, ou rejeter. { $question }
batch-not-offered = Rien n'est proposé ici pour approbation concernant la commande { $orders } ; rien n'a été enregistré. { $question }
batch-line-filed-before = { $order } : déjà enregistré ; un rejet ne l'annule pas.
batch-line-declined = { $order } : non enregistré : vous avez rejeté « { $summary } ». Rien n'a été modifié.
batch-line-not-found = { $order } : commande client introuvable ; rien n'a été enregistré.
batch-line-failed = { $order } : { $error } ; rien n'a été enregistré. Répondez approuver { $order } pour réessayer.
needs-own-question = Pour l'approuver, interrogez-moi sur la commande { $order } seule : la modification nécessite la date de livraison demandée par le client.

## Exécuter une action approuvée

action-done = Effectué dans S/4HANA : { $what }.
action-refused = Enregistré, mais S/4HANA l'a refusé : { $reason }. Rien n'a été modifié.
action-hook-refused = Enregistré et noté sur la commande client { $order }, mais le hook d'action l'a refusé : { $reason }.
action-gave-up = Enregistré, mais S/4HANA n'a pas répondu après { $attempts } tentatives ({ $reason }). Rien n'a été modifié.
action-tried-again = Enregistré ; S/4HANA n'a pas répondu, une nouvelle tentative aura lieu (vous recevrez une notification).
action-being-carried-out = Enregistré ; l'exécution est en cours dans S/4HANA (vous recevrez une notification).
# Une ligne du journal relue : son détail tel que le journal le garde (en anglais).
action-done-as-kept = Effectué dans S/4HANA ; le journal indique : « { $kept } ».
action-refused-as-kept = Enregistré, mais S/4HANA l'a refusé ; le journal indique : « { $kept } ». Rien n'a été modifié.
action-not-carried-out = Non exécuté ; le journal indique : « { $kept } ».
change-delivery-date = { $block ->
        [yes] la date de livraison souhaitée de la commande { $order } est désormais le { $date } et son blocage de livraison est levé
       *[no] la date de livraison souhaitée de la commande { $order } est désormais le { $date }
    }
change-credit-note = { $released ->
        [yes] une note de revue de crédit figure sur la commande client { $order } et son blocage de crédit est levé
       *[no] une note de revue de crédit figure sur la commande client { $order }
    }
change-noted = une note sur la commande client { $order } consigne l'action approuvée { $action }
change-noted-hook = { $noted }, et le hook d'action l'a prise en charge ({ $answer })
reason-no-valid-date = l'approbation de la commande client { $order } ne contient pas de date de livraison valide
reason-not-found = la commande client { $order } est introuvable
reason-stale = la commande client { $order } a été modifiée depuis sa lecture (412)
reason-block-changed = la commande client { $order } a été modifiée depuis l'explication (412 ; son blocage de livraison est maintenant « { $block } ») ; interrogez-moi à nouveau à son sujet
reason-forbidden = S/4HANA ne vous autorise pas à modifier { $object } (403)
reason-identity = S/4HANA n'a pas accepté votre identité : { $detail }
reason-no-answer = S/4HANA n'a pas répondu ({ $detail })
# Pourquoi une proposition approuvée n'a pas été enregistrée (avant « ; rien n'a été enregistré »).
not-filed-ledger = l'action n'a pas pu être enregistrée pour le moment ({ $error })
not-filed-earlier-open = une demande { $action } antérieure pour la commande { $order } (approuvée le { $at } par { $user }) est en cours d'exécution

## Une lecture des commandes qui a échoué

backend-forbidden = S/4HANA ne vous permet pas de voir { $what }.
backend-no-answer = S/4HANA n'a pas répondu à temps ; veuillez réessayer.
backend-no-user = Je ne lis S/4HANA qu'au nom de la personne qui pose la question, et cette demande ne porte aucune identité d'utilisateur (un appelant technique). Veuillez poser la question en tant qu'utilisateur connecté.
backend-identity = S/4HANA n'a pas accepté votre identité ({ $reason }). Rien n'a été lu ; demandez à votre administrateur de vérifier la connexion à S/4HANA (order-exception-agent diagnose).
backend-settings = La connexion à S/4HANA n'est pas correctement configurée ({ $reason }). Veuillez en informer votre administrateur.
backend-unavailable = Les données de commande n'ont pas pu être lues pour le moment ({ $error }). Veuillez réessayer plus tard.

## Ce qu'un appel à S/4HANA concernait, tel qu'un refus le nomme
## (« ne vous permet pas de voir … », « … de modifier … »)

subject-sales-order = la commande client { $id }
subject-sales-order-texts = les textes de la commande client { $id }
subject-sales-orders = les commandes clients
subject-partner-address = l'adresse du partenaire commercial { $id }
subject-credit-account = le compte de crédit du client { $id }
subject-open-items = les postes ouverts du client { $id }
subject-price-list = la liste de prix du client { $id }
subject-customers = les clients nommés « { $id } »
subject-service = le service { $id }

## Une demande qui dure plus longtemps que le budget de temps

still-working = Votre demande est en cours de traitement ; la réponse suivra dès qu'elle sera prête.
still-working-ask-again = Votre demande est en cours de traitement ; cela prend plus de temps que d'habitude. Reposez la question dans cette conversation d'ici une à deux minutes (par exemple « c'est terminé ? ») pour obtenir la réponse.
still-working-read-later = Votre demande est en cours de traitement ; la réponse n'est pas envoyée d'elle-même : lisez-la avec tasks/get une fois la tâche terminée.
