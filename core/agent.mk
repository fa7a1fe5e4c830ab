# core/agent.mk
