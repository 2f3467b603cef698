"""Thread answers: questions and dismissals in the bot's review threads."""
