# Lo que lee el usuario, en español. Este catálogo aún no tiene todas las
# respuestas: mientras le falten, a los usuarios hispanohablantes se les
# responde en inglés, y se les dice una vez (docs/routing.md#languages).
# Añadir aquí los mensajes de data/i18n/en.ftl, con las mismas variables.

answers-in-english = Todavía no respondo en español; aquí está mi respuesta en inglés.
