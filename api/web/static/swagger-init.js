// Swagger UI at /docs, from the vendored bundle; no validator badge (it would call another host)
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  validatorUrl: null,
  deepLinking: true,
  layout: "BaseLayout",
});
