import express from "express";
import path from "node:path";

const app = express();
const ROOT = path.resolve("uploads");

app.get("/health", (_req, res) => res.send("ok"));

export default app;
