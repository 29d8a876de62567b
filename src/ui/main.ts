const app = document.getElementById("app");
if (app) {
  app.innerHTML = `<h1>Code-A1 Arena</h1>
<p>A Code policy writes Python, a Test policy reads it and writes tests to break it; both learn with GRPO, in your browser.</p>`;
}
