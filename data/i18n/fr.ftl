# Ce que l'utilisateur lit, en français. Ce catalogue n'a pas encore toutes
# les réponses : tant qu'il lui en manque, les utilisateurs francophones sont
# répondus en anglais, et le lisent une fois (docs/routing.md#languages).
# Ajouter les messages de data/i18n/en.ftl ici, avec les mêmes variables.

answers-in-english = Je ne réponds pas encore en français ; voici ma réponse en anglais.
