# Lo que lee el usuario, en español: completo, cada mensaje del catálogo
# inglés con las mismas variables (src/agent/language/catalog.rs lo
# comprueba). Importes, porcentajes y fechas llegan con formato español
# (50.700,00; 1,4; 18/12/2026); números de pedido, clientes, códigos y la
# nota del cliente, tal como son.

## Listas

or-pair = { $left } o { $right }
and-pair = { $left } y { $right }

## Los especialistas

which-order = ¿De qué pedido de cliente se trata? Indique su número (un número de cuatro cifras, como 4711).
not-found = No se ha encontrado el pedido de cliente { $order }. Compruebe el número.
not-mine = El pedido de cliente { $order } { $kind ->
        [credit] no está bloqueado por el control de crédito
        [pricing] no está en una disputa de precio
        [masterdata] no está incompleto: no falta ningún dato maestro
       *[delivery] no tiene bloqueo de entrega
    }.
block-note-reads = Su nota de bloqueo dice: "{ $note }"
no-block = No tiene ningún bloqueo.
own-block-ask = Tiene { $kind ->
        [credit] un bloqueo de crédito
        [pricing] una disputa de precio
        [masterdata] datos maestros incompletos
       *[delivery] un bloqueo de entrega
    }: pregunte "{ $kind ->
        [credit] ¿por qué está bloqueado el pedido { $order } por crédito?
        [pricing] ¿por qué se disputa el precio del pedido { $order }?
        [masterdata] ¿qué datos maestros faltan en el pedido { $order }?
       *[delivery] ¿por qué tiene el pedido { $order } un bloqueo de entrega?
    }"
unconfigured-block = Tiene { $field ->
        [billing] el bloqueo de factura
       *[delivery] el bloqueo de entrega
    } { $code }, que este agente no tiene configurado para explicar; si { $code } significa { $field ->
        [billing] una disputa de precio
       *[delivery] un bloqueo de entrega que se debe explicar
    }, añádalo a { $setting } ({ $env }).
not-blocked = El pedido de cliente { $order } no está bloqueado; no hay que hacer nada.
order-unconfigured = Pedido de cliente { $order }: { $unconfigured }

credit-no-account = El pedido de cliente { $order } está bloqueado por el control de crédito, pero el cliente { $customer } no tiene cuenta de crédito.
credit-explained = El pedido de cliente { $order } (cliente { $customer }, { $amount } { $currency }) está bloqueado por el control de crédito: las partidas abiertas del cliente suman { $open } { $accountCurrency } frente a un límite de crédito de { $limit } { $accountCurrency }, { $standing ->
        [over] un { $percent } % por encima del límite
       *[within] dentro del límite
    }. Hasta un { $max } % por encima, decide el gestor de crédito; por encima de eso, la dirección financiera. Por tanto, decide { $decider ->
        [credit-manager] el gestor de crédito
       *[head-of-finance] la dirección financiera
    }. Acción propuesta: solicitar una revisión de crédito para el pedido { $order }.

pricing-item-listed = la posición { $item } ({ $material }) se factura a { $billed } { $currency }, mientras que la lista de precios del cliente indica { $listed } { $listCurrency }, una diferencia de { $difference } { $currency }
pricing-item-unlisted = la posición { $item } ({ $material }) se factura a { $billed } { $currency } y no figura en la lista de precios del cliente
pricing-explained = El pedido de cliente { $order } (cliente { $customer }) está en una disputa de precio: { $items }.
pricing-customer-note = La nota del cliente, citada tal como se recibió (son palabras del cliente, no una instrucción): { $note }
pricing-proposed = Acción propuesta: abrir un caso de litigio para el pedido { $order }.

masterdata-gap = en { $object } del interlocutor comercial { $partner } faltan datos ({ $fields })
masterdata-explained = El pedido de cliente { $order } está incompleto: { $gaps }. El pedido no se puede entregar hasta que se mantengan estos campos. Acción propuesta: solicitar una modificación de datos maestros para el interlocutor comercial { $partner } (campos { $fields }).

delivery-explained = El pedido de cliente { $order } (cliente { $customer }) tiene un bloqueo de entrega (motivo { $reason }): "{ $note }" La nueva fecha de entrega debe confirmarse con el cliente antes de levantar el bloqueo. Acción propuesta: solicitar un cambio de la fecha de entrega para el pedido { $order }.

## El enrutador y el agente

skill-name = { $skill ->
        [credit] Bloqueo de crédito
        [pricing] Disputa de precio
        [masterdata] Pedido incompleto / datos maestros
       *[delivery] Bloqueo de entrega
    }
skill-kind = { $skill ->
        [credit] bloqueo de crédito
        [pricing] disputa de precio
        [masterdata] pedido incompleto / datos maestros
       *[delivery] bloqueo de entrega
    }
which-problem = ¿De qué problema se trata: { $problems }? Indique cuál y dé el número del pedido de cliente.
what-i-do = Explico pedidos de cliente bloqueados ({ $kinds }); no listo otros pedidos. Pregunte "muéstrame todos los pedidos bloqueados", "bloqueos de crédito del cliente 10023" o por un pedido concreto: "¿por qué está bloqueado el pedido 4711?"
no-specialist = No hay ningún especialista disponible para esta solicitud.
nothing-waiting = En esta conversación no hay nada pendiente de su aprobación. Pregunte primero por un pedido de cliente bloqueado; le preguntaré antes de registrar nada.

## Varios pedidos

named-left-out = { $count ->
        [one] Se ha indicado { $count } pedido más de los que examina una consulta (como máximo { $bound }); pregunte por él en otra consulta.
       *[other] Se han indicado { $count } pedidos más de los que examina una consulta (como máximo { $bound }); pregunte por ellos en otra consulta.
    }
blocked-many = { $kind ->
        [credit] bloqueos de crédito
        [pricing] disputas de precio
        [masterdata] pedidos incompletos
        [delivery] bloqueos de entrega
       *[any] pedidos bloqueados
    }
blocked-one = { $kind ->
        [credit] bloqueo de crédito
        [pricing] disputa de precio
        [masterdata] pedido incompleto
        [delivery] bloqueo de entrega
       *[any] pedido bloqueado
    }
of-customer = { $what } del cliente { $customer }
blocked-not-listed-in-time = No se ha podido obtener a tiempo la lista de { $what }; inténtelo de nuevo.
blocked-none-found = No se han encontrado { $what }.
blocked-one-more = Coincide además 1 { $what }
blocked-more = Coinciden además { $atLeast ->
        [yes] al menos { $count }
       *[no] { $count }
    } { $what }
blocked-left-out = { $more }; una consulta examina como máximo { $bound }: acote la pregunta, por ejemplo, a un cliente ("pedidos bloqueados del cliente 10023") o a un tipo de bloqueo ("bloqueos de crédito").

## Un cliente nombrado por su nombre ("¿qué pedidos de Nordwind están bloqueados?")

customer-named = { $name } ({ $customer })
customer-name-unknown = No conozco ningún cliente llamado "{ $name }", así que no he listado ningún pedido. Pregunte con el número del cliente ("pedidos bloqueados del cliente 10023") u otra forma de escribir el nombre.
customer-name-several = { $more ->
        [yes] Más de { $count } clientes coinciden con "{ $name }"; los { $count } primeros son { $candidates }. ¿A cuál se refiere? Responda con su número o precise el nombre.
       *[no] { $count } clientes coinciden con "{ $name }": { $candidates }. ¿A cuál se refiere? Responda con su número.
    }
batch-explained = { $done } de { $total } { $total ->
        [one] pedido explicado
       *[other] pedidos explicados
    }
batch-timed-out = no se pudo leer a tiempo: { $orders }
batch-failed = con error: { $orders }
batch-refused = denegado: { $orders }
batch-no-specialist = ningún especialista
batch-item = { $order } ({ $who }): { $text }
order-line = { $order }: { $text }
clause-join = { $left }; { $right }
batch-item-timed-out = El pedido de cliente { $order } no se pudo leer a tiempo (en un plazo de { $seconds } s).
batch-unknown-block = El pedido de cliente { $order } tiene un bloqueo que ningún especialista conoce: "{ $note }"
batch-progress = { $done } de { $total } pedidos revisados hasta ahora (el último, { $order }).

## Aprobaciones

action-verb = { $action ->
        [request_credit_review] Solicitar una revisión de crédito
        [open_dispute_case] Abrir un caso de litigio
        [request_master_data_change] Solicitar una modificación de datos maestros
       *[request_delivery_date_change] Solicitar un cambio de la fecha de entrega
    }
action-inline = { $action ->
        [request_credit_review] solicitar una revisión de crédito
        [open_dispute_case] abrir un caso de litigio
        [request_master_data_change] solicitar una modificación de datos maestros
       *[request_delivery_date_change] solicitar un cambio de la fecha de entrega
    }
approval-question = ¿{ $verb } para el pedido { $order }? Responda aprobar o rechazar.
approval-question-dated = ¿{ $verb } al { $date } para el pedido { $order }? Responda aprobar o rechazar.
approve-or-reject = Responda aprobar o rechazar.
proposal-summary = { $verb } para el pedido de cliente { $order }
date-question = ¿Qué fecha de entrega deseada ha indicado el cliente?
date-unreadable = "{ $text }" no es una fecha que entienda; escríbala como 18/12/2026 o 18 de diciembre de 2026
date-not-in-future = { $date } no es una fecha futura; indique una fecha posterior
no-role = ningún rol
caller-roles = { $count ->
        [0] un usuario sin rol
        [one] el rol { $roles }
       *[other] los roles { $roles }
    }
refused-technical = { $filing ->
        [yes] No registrado
       *[no] No se ofrece para aprobación
    }: un usuario técnico nunca aprueba. Puede decidir una persona con { $roles }.
refused-not-proposable = El especialista { $specialist } no puede proponer «{ action-inline }»; no se ofrece nada.
refused-denied = { $filing ->
        [yes] No registrado
       *[no] No se ofrece para aprobación
    }: «{ action-inline }» no está permitido para { $caller }. Quién puede decidir: { $roles }.
declined = No registrado: ha rechazado "{ $summary }". No se ha modificado nada.
not-found-nothing-filed = No se ha encontrado el pedido de cliente { $order }; no se ha registrado nada.
nothing-was-filed = No se ha registrado nada.
filing-failed = { $error }; no se ha registrado nada. Responda aprobar para volver a intentarlo.
filed = Registrado: { $summary } (pedido { $order }, { $action }), aprobado por { $user } como { $role }.
already-filed = Ya registrado: { $user } registró { $action } para el pedido { $order } el { $at } como { $role }. No se ha registrado nada nuevo.
batch-question = ¿Aprobar: { $offers }? Responda aprobar todos, aprobar { $example } o rechazar.
batch-offer = { $verb } para el pedido { $order }
batch-answer-unclear = Responda aprobar todos, aprobar y los números de pedido, o rechazar. { $question }
batch-not-offered = Aquí no se ofrece para aprobación nada del pedido { $orders }; no se ha registrado nada. { $question }
batch-line-filed-before = { $order }: ya registrado; un rechazo no lo anula.
batch-line-declined = { $order }: no registrado: ha rechazado "{ $summary }". No se ha modificado nada.
batch-line-not-found = { $order }: no se ha encontrado el pedido de cliente; no se ha registrado nada.
batch-line-failed = { $order }: { $error }; no se ha registrado nada. Responda aprobar { $order } para volver a intentarlo.
needs-own-question = Para aprobar este cambio, pregunte solo por el pedido { $order }: necesita la fecha de entrega deseada que indicó el cliente.

## Ejecutar una acción aprobada

action-done = Realizado en S/4HANA: { $what }.
action-refused = Registrado, pero S/4HANA lo ha rechazado: { $reason }. No se ha modificado nada.
action-hook-refused = Registrado y anotado en el pedido de cliente { $order }, pero el action hook lo ha rechazado: { $reason }.
action-gave-up = Registrado, pero S/4HANA no ha respondido tras { $attempts } intentos ({ $reason }). No se ha modificado nada.
action-tried-again = Registrado; S/4HANA no ha respondido y se volverá a intentar (recibirá una notificación).
action-being-carried-out = Registrado; se está ejecutando en S/4HANA (recibirá una notificación).
# Una fila del registro leída de nuevo: su detalle tal como lo guarda el registro (en inglés).
action-done-as-kept = Realizado en S/4HANA; el registro indica: "{ $kept }".
action-refused-as-kept = Registrado, pero S/4HANA lo ha rechazado; el registro indica: "{ $kept }". No se ha modificado nada.
action-not-carried-out = No ejecutado; el registro indica: "{ $kept }".
change-delivery-date = { $block ->
        [yes] la fecha de entrega deseada del pedido { $order } es ahora el { $date } y se ha eliminado su bloqueo de entrega
       *[no] la fecha de entrega deseada del pedido { $order } es ahora el { $date }
    }
change-credit-note = { $released ->
        [yes] el pedido de cliente { $order } tiene una nota de revisión de crédito y se ha liberado su bloqueo de crédito
       *[no] el pedido de cliente { $order } tiene una nota de revisión de crédito
    }
change-noted = una nota en el pedido de cliente { $order } deja constancia de la acción aprobada { $action }
change-noted-hook = { $noted }, y el action hook la ha aceptado ({ $answer })
reason-no-valid-date = la aprobación del pedido de cliente { $order } no contiene una fecha de entrega válida
reason-not-found = no se ha encontrado el pedido de cliente { $order }
reason-stale = el pedido de cliente { $order } ha cambiado desde que se leyó (412)
reason-block-changed = el pedido de cliente { $order } ha cambiado desde que se explicó (412; su bloqueo de entrega es ahora "{ $block }"); vuelva a preguntar por él
reason-forbidden = no tiene autorización para modificar { $object } (403)
reason-identity = S/4HANA no ha aceptado su identidad: { $detail }
reason-no-answer = S/4HANA no ha respondido ({ $detail })
# Por qué no se registró una propuesta aprobada (antes de "; no se ha registrado nada").
not-filed-ledger = la acción no se ha podido registrar en este momento ({ $error })
not-filed-earlier-open = una solicitud anterior { $action } para el pedido { $order } (aprobada el { $at } por { $user }) se está ejecutando en este momento

## Una lectura de los pedidos que ha fallado

backend-forbidden = S/4HANA no le permite ver { $what }.
backend-no-answer = S/4HANA no ha respondido a tiempo; inténtelo de nuevo.
backend-no-user = Solo leo S/4HANA en nombre de la persona que pregunta, y esta solicitud no lleva ninguna identidad de usuario (es un usuario técnico). Pregunte con un usuario que haya iniciado sesión.
backend-identity = S/4HANA no ha aceptado su identidad ({ $reason }). No se ha leído nada; pida a su administrador que compruebe la conexión con S/4HANA (order-exception-agent diagnose).
backend-settings = La conexión con S/4HANA no está bien configurada ({ $reason }). Informe a su administrador.
backend-unavailable = No se han podido leer los datos de los pedidos en este momento ({ $error }). Inténtelo de nuevo más tarde.

## Lo que concernía una llamada a S/4HANA, tal como lo nombra un rechazo
## («no le permite ver …», «… modificar …»)

subject-sales-order = el pedido de cliente { $id }
subject-sales-order-texts = los textos del pedido de cliente { $id }
subject-sales-orders = los pedidos de cliente
subject-partner-address = la dirección del interlocutor comercial { $id }
subject-credit-account = la cuenta de crédito del cliente { $id }
subject-open-items = las partidas abiertas del cliente { $id }
subject-price-list = la lista de precios del cliente { $id }
subject-customers = los clientes llamados "{ $id }"
subject-service = el servicio { $id }

## Una solicitud que tarda más que el tiempo disponible

still-working = Su solicitud se sigue procesando; la respuesta llegará en cuanto esté lista.
still-working-ask-again = Su solicitud se sigue procesando; esto tarda más de lo habitual. Vuelva a preguntar en esta conversación dentro de uno o dos minutos (por ejemplo, "¿ya está?") para obtener la respuesta.
still-working-read-later = Su solicitud se sigue procesando; la respuesta no se envía sola: léala con tasks/get cuando la tarea haya terminado.
